/**
 * How many log lines of one kind a NIC may write: at most `burst` in a window of
 * `windowMs` that starts with the first line after the last window ended; the lines
 * beyond are counted, and the count is handed out once that window has ended. A peer
 * that floods LLDP frames (malformed, or a new neighbour in each) then costs a few lines
 * a window, not one per frame. Pure: the time comes in.
 */
export class LineBudget {
  #start = Number.NEGATIVE_INFINITY;
  #used = 0;
  #skipped = 0;
  #due = 0;

  constructor(
    readonly burst: number,
    readonly windowMs: number,
  ) {}

  #roll(now: number): void {
    if (now - this.#start < this.windowMs) return;
    this.#due += this.#skipped;
    this.#skipped = 0;
    this.#used = 0;
    this.#start = now;
  }

  /** Whether a line may be written at `now`; when not, it is counted as skipped. */
  take(now: number): boolean {
    this.#roll(now);
    if (this.#used < this.burst) {
      this.#used++;
      return true;
    }
    this.#skipped++;
    return false;
  }

  /** The lines skipped in windows that ended by `now`, once (then 0 until more are). */
  skippedDue(now: number): number {
    this.#roll(now);
    const n = this.#due;
    this.#due = 0;
    return n;
  }
}
