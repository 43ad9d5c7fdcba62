// A failure as the backend sends it, over IPC or HTTP: {code, message, location}.

import type { Error as BackendError, ErrorCode, Location } from "./bindings";

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly location: Location | null;
  constructor(e: BackendError) {
    super(e.message);
    this.name = "ApiError";
    this.code = e.code;
    this.location = e.location;
  }
}

export function isBackendError(e: unknown): e is BackendError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}
