/**
 * The last lines of a program's output, in bounded memory whatever it prints: at most
 * `keep` lines, each at most LINE_HEAD + LINE_TAIL characters (a longer line keeps its
 * start and its end, where tar and most tools put the reason: `tar: <name>: Cannot open:
 * File name too long`), and the unfinished last line capped the same way while it grows.
 * Each chunk is scanned once: a line of 30 MB arriving in 64 KiB chunks costs its length,
 * not its length times the chunks (before, every chunk re-split the whole partial line:
 * a tar naming 30 MB member names grew the agent to 1 GiB). Pure.
 */

/**
 * Characters kept from the start and from the end of a longer line: with the marker between
 * them (under 40 characters) a cut line still fits escape-line.ts LINE_MAX (2000), so the
 * escaping that follows keeps its end.
 */
export const LINE_HEAD = 960;
export const LINE_TAIL = 960;

/** One line being gathered: its start, its end, and how long it really is. */
class LineBuilder {
  head = "";
  tail = "";
  length = 0;

  add(seg: string): void {
    if (seg === "") return;
    this.length += seg.length;
    let rest = seg;
    if (this.head.length < LINE_HEAD) {
      const take = LINE_HEAD - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
    }
    if (rest === "") return;
    this.tail = rest.length >= LINE_TAIL ? rest.slice(-LINE_TAIL) : (this.tail + rest).slice(-LINE_TAIL);
  }

  /** The line as kept: whole when it fits, else its start and end around a count of what was cut. */
  text(): string {
    const cut = this.length - this.head.length - this.tail.length;
    return cut > 0 ? `${this.head} ...(${cut} characters cut)... ${this.tail}` : this.head + this.tail;
  }
}

export class LineTail {
  readonly lines: string[] = [];
  #partial = new LineBuilder();
  /** Lines seen in all (the kept ones are the last `keep`). */
  count = 0;

  constructor(
    readonly keep: number,
    /** Called with each line as kept (capped), complete or the last one at `end()`. */
    readonly onLine: (line: string) => void = () => {},
  ) {}

  push(text: string): void {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      this.#partial.add(text.slice(from, nl));
      this.#close();
      from = nl + 1;
    }
    this.#partial.add(text.slice(from));
  }

  /** The output ended: a last line without a newline counts now. */
  end(): void {
    if (this.#partial.length > 0) this.#close();
  }

  #close(): void {
    const line = this.#partial.text();
    this.#partial = new LineBuilder();
    this.count++;
    this.onLine(line);
    this.lines.push(line);
    if (this.lines.length > this.keep) this.lines.shift();
  }
}
