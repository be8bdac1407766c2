/**
 * Renders a kconfig Report: a table for people (failures first, then warnings, then
 * passes, each in fragment order) and a summary line; JSON is the Report itself. Pure.
 */
import type { OptionResult, Report, Status } from "./evaluate.ts";

const ORDER: Record<Status, number> = { fail: 0, warn: 1, pass: 2 };

function detail(r: OptionResult): string {
  return r.finding === "" ? r.reason : `${r.finding} - ${r.reason}`;
}

export function formatTable(report: Report): string {
  const rows = [...report.results].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const header = ["STATUS", "OPTION", "CLASS", "WANT", "GOT", "DETAIL"];
  const cells = rows.map((r) => [r.status.toUpperCase(), r.option, r.class, r.expected, r.actual, detail(r)]);
  const widths = header.slice(0, -1).map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]): string =>
    c
      .map((x, i) => (i < widths.length ? x.padEnd(widths[i] as number) : x))
      .join("  ")
      .trimEnd() + "\n";
  let out = line(header);
  for (const c of cells) out += line(c);
  out += "\n" + summary(report) + "\n";
  return out;
}

export function summary(report: Report): string {
  const { pass, warn, fail } = report.counts;
  const head = report.verdict === "pass" ? "PASS" : "FAIL";
  let s = `${head}: ${report.config} against ${report.fragment}: ${fail} failed, ${warn} warning${warn === 1 ? "" : "s"}, ${pass} passed`;
  if (report.modules) s += `; module set ${report.modules.source} (${report.modules.count} modules)`;
  else if (report.unverifiedModules > 0) {
    s += `; ${report.unverifiedModules} option${report.unverifiedModules === 1 ? " is a module" : "s are modules"} (=m) counted as present without checking the initramfs (give --modules to verify)`;
  }
  return s;
}

/** The names of the failed options (or those of another status), for a one-line message: at most `max`, then "and N more". */
export function failedOptions(report: Report, max = 10, status: Status = "fail"): string {
  const failed = report.results.filter((r) => r.status === status).map((r) => r.option);
  return failed.length <= max ? failed.join(", ") : `${failed.slice(0, max).join(", ")} and ${failed.length - max} more`;
}
