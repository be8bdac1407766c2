import { escapeDeep, escapeUntrusted } from "../platform/log/escape.ts";
import type { Context } from "../platform/io/context.ts";

/**
 * A record as one JSON line, or as aligned `key  value` lines; output passes the secret
 * scrub. Text cells are escaped (escapeUntrusted): a server message or a DMI string
 * cannot move the cursor or forge a line, in JSON or text.
 */
export function printRecord(ctx: Context, view: Record<string, unknown>, json: boolean): void {
  if (json) {
    ctx.io.out(ctx.secrets.scrub(JSON.stringify(escapeDeep(view))) + "\n");
    return;
  }
  const width = Math.max(...Object.keys(view).map((k) => k.length));
  for (const [k, v] of Object.entries(view)) ctx.io.out(ctx.secrets.scrub(escapeUntrusted(`${k.padEnd(width)}  ${typeof v === "string" ? v : JSON.stringify(v)}`)) + "\n");
}

/** Rows as an aligned table with a header line; cells escaped like printRecord's. */
export function printTable(ctx: Context, columns: readonly string[], rows: readonly (readonly string[])[]): void {
  const safe = rows.map((r) => r.map(escapeUntrusted));
  const widths = columns.map((c, i) => Math.max(c.length, ...safe.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  ctx.io.out(ctx.secrets.scrub([line(columns), ...safe.map(line)].join("\n")) + "\n");
}
