// A browser's files: the screens hold chosen files by name, as the desktop app holds
// paths, and the browser client sends their bytes to the server (returned packs to
// merge, files to import). A name typed by hand means nothing to the server: only files
// chosen in this page are sent.

import type { ImportJob, ImportOutcome, ImportProgress, MergeOutcome, PacksUpload, Upload, UploadFile } from "./bindings";
import { ApiError } from "./error";

/** The files chosen in this page, by the name the screens hold. */
const chosen = new Map<string, File>();

/** Asks the person for files (`accept`: ".fdpack", ".jsonl,.csv"); their names, empty when
 * cancelled. Must run in a click's handler, as browsers ask. */
export function chooseFiles(accept: string, directory = false): Promise<string[]> {
  return new Promise((resolve) => {
    const input = document.createElement("input");
    input.type = "file";
    input.multiple = true;
    input.accept = accept;
    input.hidden = true;
    input.dataset["testid"] = "file-chooser";
    if (directory) input.webkitdirectory = true;
    const done = (names: string[]): void => {
      input.remove();
      resolve(names);
    };
    input.addEventListener("change", () => done([...(input.files ?? [])].map(keep)));
    input.addEventListener("cancel", () => done([]));
    // In the page while it is open, where a test's WebDriver can give it files too.
    document.body.append(input);
    input.click();
  });
}

/** Keeps `file` under a name of its own ("claims.jsonl", then "claims.jsonl (2)"). */
function keep(file: File): string {
  let name = file.webkitRelativePath || file.name;
  for (let n = 2; chosen.has(name) && chosen.get(name) !== file; n += 1) name = `${file.name} (${n})`;
  chosen.set(name, file);
  return name;
}

async function base64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = "";
  // In slices: one call with millions of arguments overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The chosen files named `names`, read for sending. */
export async function filesNamed(names: string[]): Promise<UploadFile[]> {
  return Promise.all(
    names.map(async (name) => {
      const file = chosen.get(name);
      if (!file) {
        throw new ApiError({
          code: "invalid_input",
          message: `${name}: in a browser, choose the files with "Choose…" (a path typed here means nothing to the server).`,
          location: null,
        });
      }
      return { name: name.split("/").pop() ?? name, base64: await base64(file) };
    }),
  );
}

export type Post = <T>(route: string, body: unknown) => Promise<T>;
export type Get = <T>(route: string) => Promise<T>;

/** Merges the chosen packs `names` on the server: each file's outcome. */
export async function mergeChosen(post: Post, names: string[], giveBack: boolean): Promise<MergeOutcome[]> {
  const upload: PacksUpload = { packs: await filesNamed(names), give_back: giveBack };
  return post<MergeOutcome[]>("/api/v1/merge", upload);
}

/** How often a running import is asked where it stands. */
const JOB_POLL_MS = 200;

type ImportListeners = { progress: (p: ImportProgress) => void; done: (o: ImportOutcome) => void };
let importListeners: ImportListeners | null = null;
/** Set by Cancel; the running import's next poll asks the server to stop it. */
let cancelAsked = false;

/** The browser's `onImport`: progress while the server's job runs, then its outcome. */
export function followImports(progress: (p: ImportProgress) => void, done: (o: ImportOutcome) => void): () => void {
  const mine = { progress, done };
  importListeners = mine;
  return () => {
    if (importListeners === mine) importListeners = null;
  };
}

/** Sends the chosen files to the server as an import job and follows it to its end. */
export async function importChosen(post: Post, get: Get, claims: string[], documents: string[], preset: string): Promise<null> {
  cancelAsked = false;
  importListeners?.progress({ phase: "sending the files to the team server", done: 0, total: 0 });
  const upload: Upload = { claims: await filesNamed(claims), documents: await filesNamed(documents), preset };
  let job = await post<ImportJob>("/api/v1/imports", upload);
  const id = job.id;
  void (async () => {
    try {
      while (!job.outcome) {
        await new Promise((r) => setTimeout(r, JOB_POLL_MS));
        const cancel = cancelAsked;
        cancelAsked = false;
        job = cancel ? await post<ImportJob>(`/api/v1/imports/${id}/cancel`, {}) : await get<ImportJob>(`/api/v1/imports/${id}`);
        if (!job.outcome) importListeners?.progress(job.progress);
      }
      importListeners?.done(job.outcome);
    } catch (e) {
      const error = e instanceof ApiError ? { code: e.code, message: e.message, location: e.location } : { code: "io" as const, message: String(e), location: null };
      importListeners?.done({ report: null, error });
    }
  })();
  return null;
}

/** Asks the running import to stop at its next step. */
export async function cancelChosen(): Promise<null> {
  cancelAsked = true;
  return null;
}
