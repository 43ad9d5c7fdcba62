// Time an item was on screen. The clock stops while the window is hidden (another app in
// front, the laptop asleep), so a coffee break does not count as minutes on one item.

export class Stopwatch {
  private total = 0;
  private since: number | null;

  constructor(private readonly now: () => number = () => performance.now(), visible = true) {
    this.since = visible ? now() : null;
  }

  /** Tells the stopwatch whether the item can be seen now. */
  setVisible(visible: boolean): void {
    if (visible && this.since === null) this.since = this.now();
    else if (!visible && this.since !== null) {
      this.total += this.now() - this.since;
      this.since = null;
    }
  }

  /** Whole milliseconds visible so far. */
  elapsedMs(): number {
    const running = this.since === null ? 0 : this.now() - this.since;
    return Math.round(this.total + running);
  }
}
