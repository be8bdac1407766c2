/**
 * The running kernel against the initramfs it booted, checked once at boot by PID 1:
 * does the image carry modules for this kernel release (/lib/modules/<release>), and
 * does the kernel's config meet the fragment, with the image's own module tree as the
 * module set. The same parser and evaluator as `kconfig check`. Pure: the shell
 * (src/init/kernel-facts.ts) reads the files, and the lines it logs are rendered here.
 */
import type { EventName } from "../../platform/log/events.ts";
import { AgentError } from "../../platform/errors.ts";
import { moduleNameOfFile } from "../kmod/names.ts";
import { parseDotConfig } from "./dotconfig.ts";
import { evaluate, type Report } from "./evaluate.ts";
import type { Fragment } from "./fragment.ts";
import { failedOptions } from "./kconfig-report.ts";

/** What the shell read. */
export interface RunningKernelFacts {
  /** /proc/sys/kernel/osrelease, trimmed; undefined when it could not be read. */
  readonly release: string | undefined;
  /** The directory names under /lib/modules: the kernel releases the image carries modules for. */
  readonly moduleTrees: readonly string[];
  /** /lib/modules/<release>. */
  readonly moduleDir: string;
  /** Files below moduleDir (paths relative to it); undefined when there is no such directory. */
  readonly moduleFiles: readonly string[] | undefined;
  /** Where the config was looked for, in order (/proc/config.gz, then the image's copy). */
  readonly searched: readonly string[];
  /** The first config found: its path and text; undefined when none was. */
  readonly config: { readonly source: string; readonly text: string } | undefined;
  /** A config that exists but could not be read (over the cap, bad gzip): path and error. */
  readonly configError?: { readonly source: string; readonly error: string } | undefined;
}

export type ConfigOutcome =
  | { readonly kind: "checked"; readonly report: Report }
  | { readonly kind: "none"; readonly searched: readonly string[] }
  | { readonly kind: "invalid"; readonly source: string; readonly error: string };

export interface RunningKernelCheck {
  readonly release: string | undefined;
  /** Sorted. */
  readonly moduleTrees: readonly string[];
  /** False when the image carries no /lib/modules/<release>: no driver can be loaded. */
  readonly treeMatches: boolean;
  readonly config: ConfigOutcome;
}

export function checkRunningKernel(facts: RunningKernelFacts, fragment: Fragment): RunningKernelCheck {
  const treeMatches = facts.release !== undefined && facts.moduleFiles !== undefined;
  const base = { release: facts.release, moduleTrees: [...facts.moduleTrees].sort(), treeMatches };
  if (facts.config === undefined) {
    return { ...base, config: facts.configError ? { kind: "invalid", ...facts.configError } : { kind: "none", searched: facts.searched } };
  }
  let parsed;
  try {
    parsed = parseDotConfig(facts.config.text, facts.config.source);
  } catch (e) {
    if (e instanceof AgentError) return { ...base, config: { kind: "invalid", source: facts.config.source, error: e.message } };
    throw e;
  }
  // No tree for this release: the module set is empty (every =m driver is missing), not "unverified".
  const names = (facts.moduleFiles ?? []).map(moduleNameOfFile).filter((n): n is string => n !== undefined);
  const modules = { source: facts.moduleDir, names: new Set(names) };
  return { ...base, config: { kind: "checked", report: evaluate(fragment, parsed, modules) } };
}

export interface LogLine {
  readonly event: EventName;
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** The failed options, each with what is wrong, at most `max` (then "and N more"). */
function failures(report: Report, max = 10): string {
  const failed = report.results.filter((r) => r.status === "fail");
  const shown = failed.slice(0, max).map((r) => `${r.option} ${r.finding}`);
  return failed.length > max ? `${shown.join("; ")}; and ${failed.length - max} more` : shown.join("; ");
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The lines PID 1 logs: for a missing module tree an error naming both releases, then
 * always one `init.kconfig` line with the config outcome. None of them stops the boot
 * (docs/kconfig.md "At boot").
 */
export function runningKernelLines(c: RunningKernelCheck): LogLine[] {
  const lines: LogLine[] = [];
  const kernel = c.release ?? "?";
  const release = c.release ?? null;
  if (!c.treeMatches) {
    lines.push({
      event: "init.kernel",
      level: "error",
      message: `running kernel ${kernel}, the initramfs carries modules for ${c.moduleTrees.length ? c.moduleTrees.join(", ") : "no kernel"}: no driver can be loaded; rebuild the initramfs for ${kernel}`,
      fields: { release, moduleTrees: c.moduleTrees },
    });
  }
  const cfg = c.config;
  if (cfg.kind === "none") {
    lines.push({
      event: "init.kconfig",
      level: "warn",
      message: `no config found for the running kernel ${kernel} (looked for ${cfg.searched.join(", ")}): its options are not checked`,
      fields: { release, outcome: "no-config", searched: cfg.searched },
    });
    return lines;
  }
  if (cfg.kind === "invalid") {
    lines.push({
      event: "init.kconfig",
      level: "warn",
      message: `the config of the running kernel ${kernel} cannot be used: ${cfg.error}: its options are not checked`,
      fields: { release, outcome: "invalid", config: cfg.source, error: cfg.error },
    });
    return lines;
  }
  const r = cfg.report;
  const fields = {
    release,
    outcome: r.verdict === "pass" ? "ok" : "fail",
    config: r.config,
    modules: r.modules,
    counts: r.counts,
    failed: r.results.filter((x) => x.status === "fail").map((x) => x.option),
    warnings: r.results.filter((x) => x.status === "warn").map((x) => x.option),
  };
  const counts = `${r.counts.pass} passed, ${plural(r.counts.warn, "warning")}${r.counts.warn ? ` (${failedOptions(r, 10, "warn")})` : ""}`;
  const set = c.treeMatches ? `module set ${r.modules?.source} (${plural(r.modules?.count ?? 0, "module")})` : `module set empty: the image has no ${r.modules?.source}`;
  if (r.verdict === "pass") {
    lines.push({ event: "init.kconfig", level: "info", message: `kernel ${kernel}: config ${r.config} meets ${r.fragment}: ${counts}; ${set}`, fields });
  } else {
    lines.push({
      event: "init.kconfig",
      level: "error",
      message: `kernel ${kernel}: config ${r.config} fails ${r.fragment}: ${plural(r.counts.fail, "requirement")} not met: ${failures(r)}; ${counts}; ${set}; the boot goes on`,
      fields,
    });
  }
  return lines;
}
