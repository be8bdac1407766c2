/**
 * Text a program printed, made safe for one log line or an error: control characters
 * (ESC sequences too) as \xNN, a trailing CR dropped, long text cut with a count. Pure.
 */
export const LINE_MAX = 2_000;

export function escapeLine(line: string, max = LINE_MAX): string {
  const clean = line.replace(/\r$/, "").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return clean.length > max ? `${clean.slice(0, max)}...(${clean.length - max} more)` : clean;
}
