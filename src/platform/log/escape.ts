/**
 * Text from outside the agent (server messages, LLDP strings, DMI fields, disk model
 * names, file contents) may hold control characters: a newline would forge a second
 * log line, an ANSI escape would repaint the operator's console. `escapeUntrusted`
 * makes such text printable on one line: C0 controls, DEL, C1 controls, the Unicode
 * line/paragraph separators and the bidirectional overrides become visible escapes
 * (`\n`, `\x1b`, `\u202e`). Ordinary text, including non-ASCII letters, is unchanged.
 * The logger applies it to every string of every record and the CLI to its final
 * error line, so callers need not.
 */

// C0 (0x00-0x1f), DEL and C1 (0x7f-0x9f), U+2028/2029, bidi embeddings/overrides/isolates.
// biome-ignore lint: control characters are the point here.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `s` with every control character replaced by a visible escape (and backslashes left as they are). */
export function escapeUntrusted(s: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s) ? s.replace(UNSAFE, escapeChar) : s;
}

/** Deep copy with escapeUntrusted applied to every string (keys too). Depth and cycles bounded. */
export function escapeDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return escapeUntrusted(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 12 || seen.has(value)) return "[...]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => escapeDeep(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[escapeUntrusted(k)] = escapeDeep(v, depth + 1, seen);
  return out;
}
