// An answer keeps one key through every sending of it: sent again after a dropped
// connection (automatically, or by the annotator pressing Enter again), it is the same
// answer to the server, which acknowledges it as stored and never stores it twice. The
// screen says "saved" only once an acknowledgement came back.

import type { Ack, Answer } from "./bindings";
import { ApiError } from "./error";

/** How long an answer is sent again while the server is out of reach before the screen
 * is told it was not saved (the answer stays on the screen, and its key with it). */
export const PATIENCE_MS = 60_000;

const waiting = new Set<(saving: boolean) => void>();

/** Hears when an answer waits for the server (true) and when that ends (false). */
export function onWaitingToSave(listener: (saving: boolean) => void): () => void {
  waiting.add(listener);
  return () => waiting.delete(listener);
}

function tell(saving: boolean): void {
  for (const listener of waiting) listener(saving);
}

/** A random (version 4) UUID, the form of the ids the backend gives answers itself;
 * `crypto.randomUUID` is missing from pages served over plain HTTP. */
export function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `submit`, sending each answer with a key kept until it is acknowledged, and sending it
 * again while the server is out of reach ("unavailable"), for up to `patience` ms. */
export function keptAnswers(
  submit: (answer: Answer) => Promise<Ack>,
  wait: (ms: number) => Promise<void> = sleep,
  patience: number = PATIENCE_MS,
): (answer: Answer) => Promise<Ack> {
  // By what the answer says (its time taken aside): the same answer sent again later
  // by the annotator takes the key of the sending whose acknowledgement was lost.
  const keys = new Map<string, string>();
  return async (answer: Answer): Promise<Ack> => {
    const said = JSON.stringify({ ...answer, key: null, duration_ms: null });
    const key = answer.key ?? keys.get(said) ?? newKey();
    keys.set(said, key);
    const keyed: Answer = { ...answer, key };
    const started = Date.now();
    let waited = false;
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const ack = await submit(keyed);
          keys.delete(said);
          return ack;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === "unavailable") || Date.now() - started > patience) throw e;
          if (!waited) tell((waited = true));
          await wait(Math.min(250 * 2 ** attempt, 4_000));
        }
      }
    } finally {
      if (waited) tell(false);
    }
  };
}
