/**
 * A bounded FIFO that drops the oldest entries when full and counts what it dropped.
 * Pure data structure (no I/O).
 */
export class DropOldestQueue<T> {
  #items: T[] = [];
  #dropped = 0;

  constructor(readonly capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
  }

  get length(): number {
    return this.#items.length;
  }

  /** Entries dropped since creation. */
  get dropped(): number {
    return this.#dropped;
  }

  push(item: T): void {
    this.#items.push(item);
    this.#trim();
  }

  /** Takes up to `n` oldest entries. */
  take(n: number): T[] {
    return this.#items.splice(0, n);
  }

  /** Puts entries back in front (a batch that could not be sent); the oldest go first when over capacity. */
  putBack(items: readonly T[]): void {
    this.#items.unshift(...items);
    this.#trim();
  }

  /** Rewrites every queued entry (used to move timestamps after a clock step). */
  map(f: (item: T) => T): void {
    this.#items = this.#items.map(f);
  }

  clear(): void {
    this.#items = [];
  }

  #trim(): void {
    const over = this.#items.length - this.capacity;
    if (over > 0) {
      this.#items.splice(0, over);
      this.#dropped += over;
    }
  }
}
