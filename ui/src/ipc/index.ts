// The only place that talks to the Tauri backend. Every command is a typed function
// generated from its declaration in Rust (operations.ts, shell.ts); failures arrive as
// ApiError carrying the backend's {code, message, location}.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { open, save } from "@tauri-apps/plugin-dialog";
import type {
  Error as BackendError,
  Dashboard,
  ImportOutcome,
  ImportProgress,
  RankOutcome,
} from "./bindings";
import { browserShell, followDashboardOverHttp, httpSend, onlyInTheApp } from "./browser";
export { signOut } from "./browser";
export { onWaitingToSave } from "./keep";
import { ApiError, isBackendError } from "./error";
import { keptAnswers } from "./keep";
import { chooseFiles, followImports } from "./uploads";
import { operations } from "./operations";
import { shellCommands } from "./shell";
import type { Send } from "./send";

export { LABELS, TASK_KINDS, VERDICTS } from "./bindings";
export type {
  Decision,
  Design,
  Given,
  Question,
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
  Ruling,
  Ack,
  Annotator,
  AnnotatorActivity,
  Answer,
  Check,
  Dashboard,
  KappaPoint,
  KindDashboard,
  PairAgreement,
  QuestionStatistics,
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
  RankOutcome,
  RankReport,
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
  ProblemReport,
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

export { ApiError } from "./error";

const tauriCall: Send = async <T>(command: string, args?: Record<string, unknown>): Promise<T> => {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    // Anything that is not our {code, message} came from Tauri itself (a missing
    // command, a denied permission): still show it, as an IO-level failure.
    throw isBackendError(e) ? new ApiError(e) : new ApiError({ code: "io", message: String(e), location: null });
  }
};

/** True in a browser served by `factdesk serve`, false in the desktop app. */
export const inBrowser = !("__TAURI_INTERNALS__" in window);

const call: Send = inBrowser ? httpSend : tauriCall;
const ops = operations(call);

/** Every command of the shell, typed: the api's operations and the shell's own. */
export const api = {
  ...ops,
  // An answer keeps one key through every sending of it, so a retry after a lost
  // acknowledgement is never stored twice.
  submitAnswer: keptAnswers(ops.submitAnswer),
  ...(inBrowser ? browserShell(call) : shellCommands(call)),
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
  if (inBrowser) return followDashboardOverHttp(snapshot, failed, link);
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
  if (inBrowser) return followImports(progress, done);
  const stops = await Promise.all([
    listen<ImportProgress>("import-progress", (e) => progress(e.payload)),
    listen<ImportOutcome>("import-done", (e) => done(e.payload)),
  ]);
  return () => {
    for (const stop of stops) stop();
  };
}

/** Follows a background ranking (desktop app only): progress as it goes, then its
 * outcome once. */
export async function onRank(progress: (p: ImportProgress) => void, done: (o: RankOutcome) => void): Promise<UnlistenFn> {
  const stops = await Promise.all([
    listen<ImportProgress>("rank-progress", (e) => progress(e.payload)),
    listen<RankOutcome>("rank-done", (e) => done(e.payload)),
  ]);
  return () => {
    for (const stop of stops) stop();
  };
}

const projectFilter = [{ name: "Factdesk project", extensions: ["fdesk"] }];
const packFilter = [{ name: "Factdesk pack", extensions: ["fdpack"] }];

/** In a browser, the name a download is saved under: the default's file name (the
 * browser's own settings say where downloads go). */
const fileName = (path: string): string => path.split(/[\\/]/).pop() || path;

/** Asks for a project or pack file to open; null when cancelled. */
export async function pickProject(): Promise<string | null> {
  if (inBrowser) return onlyInTheApp("Opening a project file");
  const picked = await open({
    multiple: false,
    directory: false,
    filters: [{ name: "Factdesk project or pack", extensions: ["fdesk", "fdpack"] }, ...projectFilter, ...packFilter],
  });
  return typeof picked === "string" ? picked : null;
}

/** Asks for returned packs to merge; empty when cancelled. */
export async function pickPacks(): Promise<string[]> {
  if (inBrowser) return chooseFiles(".fdpack");
  const picked = await open({ title: "Merge results", multiple: true, directory: false, filters: packFilter });
  if (picked === null) return [];
  return Array.isArray(picked) ? picked : [picked];
}

/** Asks for files to import (claims or documents); empty when cancelled. */
export async function pickImportFiles(title: string, directory = false): Promise<string[]> {
  if (inBrowser) return chooseFiles(directory ? "" : ".jsonl,.json,.csv,.tsv,.txt", directory);
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
  if (inBrowser) return onlyInTheApp("Creating a project file");
  const picked = await save({ filters: projectFilter, defaultPath: "project.fdesk" });
  return picked ?? null;
}

/** Asks where to write a pack; null when cancelled. */
export async function pickPackFile(defaultPath: string): Promise<string | null> {
  if (inBrowser) return fileName(defaultPath);
  const picked = await save({ defaultPath, filters: packFilter });
  return picked ?? null;
}

/** Asks where to write the gold file; null when cancelled. */
/** The save dialog for the raw answers, filtered to the chosen format's extension. */
export async function pickAnswersFile(defaultPath: string, extension: string): Promise<string | null> {
  if (inBrowser) return fileName(defaultPath);
  const picked = await save({ defaultPath, filters: [{ name: extension.toUpperCase(), extensions: [extension] }] });
  return picked ?? null;
}

export async function pickGoldFile(defaultPath: string): Promise<string | null> {
  if (inBrowser) return fileName(defaultPath);
  const picked = await save({ defaultPath, filters: [{ name: "JSON Lines", extensions: ["jsonl"] }] });
  return picked ?? null;
}
