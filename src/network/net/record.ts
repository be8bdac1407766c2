/**
 * Reducer inputs as JSON lines (`net up --record FILE`): what the tests replay
 * (test/fixtures/net/*.jsonl). Byte arrays (raw attributes, unknown ND options)
 * are kept as {"$hex": "..."}; the first line holds the options and the selection.
 */
import type { CoreOptions, Input } from "./reducer.ts";
import type { LinkFacts } from "./select.ts";

export interface RecordingHead {
  readonly options: CoreOptions;
  readonly selected: readonly LinkFacts[];
  readonly t0: number;
}

export function encodeLine(v: RecordingHead | Input): string {
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof Uint8Array ? { $hex: Buffer.from(x).toString("hex") } : x === Infinity ? { $inf: 1 } : x)) + "\n";
}

export function decodeRecording(text: string): { head: RecordingHead; inputs: Input[] } {
  const lines = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(
      (l) =>
        JSON.parse(l, (_k, x: unknown) => {
          if (x && typeof x === "object" && "$hex" in x) return new Uint8Array(Buffer.from(String((x as { $hex: string }).$hex), "hex"));
          if (x && typeof x === "object" && "$inf" in x) return Infinity;
          return x;
        }) as unknown,
    );
  const [head, ...inputs] = lines;
  return { head: head as RecordingHead, inputs: inputs as Input[] };
}
