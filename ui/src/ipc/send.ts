// How a generated operation reaches the shell: the app's invoke, its failures made
// ApiError (index.ts passes it in).
export type Send = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;
