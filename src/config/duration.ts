/** Parses durations as operators write them on a cmdline: 90s, 2m, 500ms, 1h, or bare seconds. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s") as keyof typeof UNIT_MS;
  const ms = Math.round(n * UNIT_MS[unit]);
  return Number.isFinite(ms) ? ms : undefined;
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
