// The type-ahead guard: an item takes keys only once it has been painted and shown for a
// moment, so keys meant for the previous item (or pressed blind while the next one loads)
// are dropped instead of answering an item nobody has seen.

/** How long an item shows before it takes keys: below a person's reaction time. */
export const READY_MS = 150;

/** Calls `done` once the page has painted what the DOM holds now, plus `ms`. */
export function afterPaint(ms: number, done: () => void): void {
  requestAnimationFrame(() => requestAnimationFrame(() => window.setTimeout(done, ms)));
}

/** Opens for keys when the latest item is ready; an older item's timer opens nothing. */
export class KeyGate {
  private generation = 0;
  private open = false;
  private dropped = 0;

  constructor(private readonly wait: (done: () => void) => void) {}

  /** A new item is on screen: closed until it has painted; `ready` gets the keys dropped meanwhile. */
  arm(ready: (dropped: number) => void): void {
    const mine = ++this.generation;
    this.open = false;
    this.wait(() => {
      if (mine !== this.generation) return;
      this.open = true;
      const dropped = this.dropped;
      this.dropped = 0;
      ready(dropped);
    });
  }

  /** Closes until the next arm() (an answer is being saved). */
  close(): void {
    this.generation += 1;
    this.open = false;
  }

  /** Opens again at once: the item on screen did not change. */
  reopen(): void {
    this.generation += 1;
    this.open = true;
    this.dropped = 0;
  }

  /** Whether the item on screen takes input now, counting nothing (for clicks). */
  isOpen(): boolean {
    return this.open;
  }

  /** Whether a key may act now; counts the ones it drops. */
  admit(): boolean {
    if (!this.open) this.dropped += 1;
    return this.open;
  }

}
