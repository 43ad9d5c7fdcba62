// The only place that talks to the Tauri backend. Every command is a typed function;
// failures arrive as ApiError carrying the backend's {code, message, location}.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { open, save } from "@tauri-apps/plugin-dialog";
import type {
  Ack,
  Annotator,
  Answer,
  AnswersFormat,
  AnswersReport,
  Error as BackendError,
  Check,
  Dashboard,
  ErrorCode,
  ExportFormat,
  ExportPreview,
  ExportReport,
  GoldRequest,
  ImportOutcome,
  ImportProgress,
  Item,
  KindPace,
  Location,
  Manifest,
  MergeOutcome,
  Next,
  Overview,
  Outcome,
  PackSummary,
  NoTask,
  PackIssued,
  PackRequest,
  PendingReview,
  Settings,
  Passage,
  Person,
  QueueItem,
  RecentProject,
  Role,
  SearchHit,
  StudyAgreement,
  StudyRequest,
  TaskKind,
  TasksReport,
  ClaimPage,
  ClaimStanding,
  ClaimView,
} from "./bindings";

export { LABELS, TASK_KINDS, VERDICTS } from "./bindings";
export type {
  Decision,
  DroppedClaim,
  Judgement,
  KindAnswer,
  Label,
  Verdict,
  ExportFormat,
  ExportPreview,
  ExportReport,
  GoldMethod,
  GoldRequest,
  Outcome,
  QueueAnswer,
  QueueCandidate,
  QueueItem,
  Ack,
  Annotator,
  AnnotatorActivity,
  Answer,
  Check,
  Dashboard,
  KappaPoint,
  KindDashboard,
  PairAgreement,
  Statistic,
  Study,
  StudyAgreement,
  StudyRequest,
  ErrorCode,
  EvidenceStance,
  EvidenceState,
  ImportOutcome,
  ImportProgress,
  ImportReport,
  Item,
  ItemOption,
  KindPace,
  Location,
  Manifest,
  MergeOutcome,
  MergeReport,
  Next,
  Overview,
  PackSummary,
  Pace,
  Passage,
  Person,
  PreviousAnswer,
  RecentProject,
  Role,
  NoTask,
  SearchHit,
  Stats,
  TaskKind,
  TasksReport,
  TextPiece,
  CheckSettings,
  Guidelines,
  PackIssued,
  PackRequest,
  PendingReview,
  Routing,
  Settings,
  ClaimAnswer,
  ClaimLine,
  ClaimPage,
  ClaimStanding,
  ClaimTask,
  ClaimView,
  QueueGroup,
  AnswersFormat,
  AnswersReport,
} from "./bindings";

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

function isBackendError(e: unknown): e is BackendError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    // Anything that is not our {code, message} came from Tauri itself (a missing
    // command, a denied permission): still show it, as an IO-level failure.
    throw isBackendError(e) ? new ApiError(e) : new ApiError({ code: "io", message: String(e), location: null });
  }
}

export const api = {
  /** The project named on the command line or in FACTDESK_PROJECT, opened; else null. */
  startupProject: () => call<Overview | null>("startup_project"),
  openProject: (path: string) => call<Overview>("open_project", { path }),
  createProject: (path: string) => call<Overview>("create_project", { path }),
  overview: () => call<Overview>("overview"),
  /**
   * Signs in to a team server: the app then works on the server's project as this person
   * (the overview's path is the server's address). Fails with "unauthorized" for a wrong
   * name or password, "unavailable" when the server is out of reach or TLS fails.
   */
  connectServer: (url: string, name: string, password: string) =>
    call<Overview>("connect_server", { url, name, password }),
  /** Who is working: on a server the person signed in, on a file the one chosen; else null. */
  currentPerson: () => call<Person | null>("current_person"),
  recentProjects: () => call<RecentProject[]>("recent_projects"),

  /** Everyone on the open project: names and roles only. */
  people: () => call<Person[]>("people"),
  signIn: (name: string) => call<Person>("sign_in", { name }),
  /** The first person may be added by anyone (and leads); after that only a lead adds. */
  addPerson: (name: string, role: Role) => call<Person>("add_person", { name, role }),
  /** Annotators with their trick record; leads only. */
  annotators: () => call<Annotator[]>("annotators"),
  createTasks: (kind: TaskKind, overlap: number | null) => call<TasksReport>("create_tasks", { kind, overlap }),
  /** Leads only: how many claims got no task of each kind, and why. */
  claimsWithoutTasks: () => call<NoTask[]>("claims_without_tasks"),

  /** The next item of a kind, reserved for the person working. */
  nextItem: (kind: TaskKind) => call<Next>("next_item", { kind }),
  /** The answered item before `current` (the last answered one when null), with its answer. */
  previousItem: (kind: TaskKind, current: number | null) => call<Item | null>("previous_item", { kind, current }),
  /** Resolves only once the answer is committed to the project file. */
  submitAnswer: (answer: Answer) => call<Ack>("submit_answer", { answer }),
  passage: (taskId: number, optionId: string) => call<Passage>("passage", { taskId, optionId }),
  checkRefutation: (taskId: number, text: string) => call<Check[]>("check_refutation", { taskId, text }),
  search: (query: string) => call<SearchHit[]>("search", { query }),
  /** The person's progress on every kind; reserves nothing. */
  paces: () => call<KindPace[]>("paces"),

  /** Starts an import in the background (leads only); follow it with onImport. */
  startImport: (claims: string[], documents: string[], preset: string) =>
    call<null>("start_import", { claims, documents, preset }),
  /** Asks the running import to stop; it rolls back and ends with a "cancelled" error. */
  cancelImport: () => call<null>("cancel_import"),

  /** Starts following agreement (leads only); snapshots arrive through onDashboard. */
  watchDashboard: () => call<null>("watch_dashboard"),
  stopDashboard: () => call<null>("stop_dashboard"),
  /** Leads only: draws a re-annotation study; every study with its figures. */
  createStudy: (request: StudyRequest) => call<StudyAgreement[]>("create_study", { request }),

  /** Tasks the counted annotators disagree on, most disagreement first (leads only). */
  adjudicationQueue: (request: GoldRequest) => call<QueueItem[]>("adjudication_queue", { request }),
  /** The lead's decision: take an annotator's answer, or give one as stored; with why. */
  /** `seen`: when the decision the screen shows was made (null: none); another one taken meanwhile is refused. */
  decide: (taskId: number, seen: number | null, take: string | null, answer: unknown, reason: string | null) =>
    call<Outcome>("decide", { taskId, seen, take, answer: answer ?? null, reason }),
  undoDecision: (taskId: number, seen: number, reason: string | null) => call<null>("undo_decision", { taskId, seen, reason }),
  /** A candidate sentence among its neighbours, for the lead adjudicating. */
  sentencePassage: (sentenceId: number) => call<Passage>("sentence_passage", { sentenceId }),
  /** What an export would write; writes nothing. */
  exportPreview: (request: GoldRequest) => call<ExportPreview>("export_preview", { request }),
  /** Writes the gold file at `out` and its dataset card beside it. */
  exportGold: (request: GoldRequest, out: string, format: ExportFormat, force: boolean) =>
    call<ExportReport>("export_gold", { request, out, format, force }),
  /** Writes every answer ever given at `out`; an existing file only with `force`. */
  exportAnswers: (out: string, format: AnswersFormat, force: boolean) =>
    call<AnswersReport>("export_answers", { out, format, force }),

  /**
   * Leads only: merges returned packs, each file with its own outcome. A pack with no
   * answers is refused (code "unanswered") unless `giveBack`: the lead takes the work back.
   */
  mergePacks: (paths: string[], giveBack = false) => call<MergeOutcome[]>("merge_packs", { paths, giveBack }),
  /** Leads only: the packs this project issued, newest first. */
  packs: () => call<PackSummary[]>("packs"),
  /** The open file's manifest when it is a pack; null for a project. */
  packInfo: () => call<Manifest | null>("pack_info"),
  /** Writes the pack's results file (beside the pack unless `to` is given); its path. */
  returnResults: (to: string | null = null) => call<string>("return_results", { to }),

  /** Leads only: written refutations waiting for accept or reject. */
  pendingReviews: () => call<PendingReview[]>("pending_reviews"),
  /** Leads only: accepts (opens its verification) or rejects a written refutation. */
  reviewRefutation: (annotationId: number, accepted: boolean, note: string | null) =>
    call<null>("review_refutation", { annotationId, accepted, note }),
  /** The project's settings. */
  settings: () => call<Settings>("settings"),
  /** Leads only: stores the settings; the stored ones come back. */
  saveSettings: (settings: Settings) => call<Settings>("save_settings", { settings }),
  /** Leads only: count (true) or leave out (false) a flagged annotator, or follow the flag (null). */
  flagDecision: (name: string, include: boolean | null) => call<Annotator>("flag_decision", { name, include }),
  /** Leads only: writes a pack for an annotator at `out` and reserves its items. */
  issuePack: (request: PackRequest, out: string) => call<PackIssued>("issue_pack", { request, out }),
  /** Releases the item the person holds: it goes back to the pool, and comes back to them
   * only when nothing new is left. True when there was a reservation to release. */
  skipItem: (taskId: number) => call<boolean>("skip_item", { taskId }),
  /** A claim as the person may see it: a lead everything, an annotator their own answers. */
  claimView: (id: number) => call<ClaimView>("claim_view", { id }),
  /** Leads only: the claims matching `words` in a standing, a page at a time. */
  claimsList: (words: string | null, standing: ClaimStanding, offset: number, limit: number) =>
    call<ClaimPage>("claims_list", { words, standing, offset, limit }),
};

/**
 * Follows the live dashboard: a snapshot at once and on every change, or a failure; on a
 * team server also the link's state (why it is down while it is followed again, null
 * once it is back).
 */
export async function onDashboard(
  snapshot: (d: Dashboard) => void,
  failed: (e: ApiError) => void,
  link: (down: ApiError | null) => void = () => undefined,
): Promise<UnlistenFn> {
  const stops = await Promise.all([
    listen<Dashboard>("dashboard", (e) => snapshot(e.payload)),
    listen<BackendError>("dashboard-error", (e) => failed(new ApiError(e.payload))),
    listen<BackendError | null>("dashboard-link", (e) => link(e.payload ? new ApiError(e.payload) : null)),
  ]);
  return () => {
    for (const stop of stops) stop();
  };
}

/** Follows a background import: progress as it goes, then its outcome once. */
export async function onImport(
  progress: (p: ImportProgress) => void,
  done: (o: ImportOutcome) => void,
): Promise<UnlistenFn> {
  const stops = await Promise.all([
    listen<ImportProgress>("import-progress", (e) => progress(e.payload)),
    listen<ImportOutcome>("import-done", (e) => done(e.payload)),
  ]);
  return () => {
    for (const stop of stops) stop();
  };
}

const projectFilter = [{ name: "Factdesk project", extensions: ["fdesk"] }];
const packFilter = [{ name: "Factdesk pack", extensions: ["fdpack"] }];

/** Asks for a project or pack file to open; null when cancelled. */
export async function pickProject(): Promise<string | null> {
  const picked = await open({
    multiple: false,
    directory: false,
    filters: [{ name: "Factdesk project or pack", extensions: ["fdesk", "fdpack"] }, ...projectFilter, ...packFilter],
  });
  return typeof picked === "string" ? picked : null;
}

/** Asks for returned packs to merge; empty when cancelled. */
export async function pickPacks(): Promise<string[]> {
  const picked = await open({ title: "Merge results", multiple: true, directory: false, filters: packFilter });
  if (picked === null) return [];
  return Array.isArray(picked) ? picked : [picked];
}

/** Asks for files to import (claims or documents); empty when cancelled. */
export async function pickImportFiles(title: string, directory = false): Promise<string[]> {
  const picked = await open({
    title,
    multiple: true,
    directory,
    filters: directory ? undefined : [{ name: "JSON Lines, CSV or TSV", extensions: ["jsonl", "json", "csv", "tsv", "txt"] }],
  });
  if (picked === null) return [];
  return Array.isArray(picked) ? picked : [picked];
}

/** Asks where to create a new project; null when cancelled. */
export async function pickNewProject(): Promise<string | null> {
  const picked = await save({ filters: projectFilter, defaultPath: "project.fdesk" });
  return picked ?? null;
}

/** Asks where to write a pack; null when cancelled. */
export async function pickPackFile(defaultPath: string): Promise<string | null> {
  const picked = await save({ defaultPath, filters: packFilter });
  return picked ?? null;
}

/** Asks where to write the gold file; null when cancelled. */
/** The save dialog for the raw answers, filtered to the chosen format's extension. */
export async function pickAnswersFile(defaultPath: string, extension: string): Promise<string | null> {
  const picked = await save({ defaultPath, filters: [{ name: extension.toUpperCase(), extensions: [extension] }] });
  return picked ?? null;
}

export async function pickGoldFile(defaultPath: string): Promise<string | null> {
  const picked = await save({ defaultPath, filters: [{ name: "JSON Lines", extensions: ["jsonl"] }] });
  return picked ?? null;
}
