/**
 * Parses a metal-hammer kernel config fragment: a merge_config.sh fragment whose
 * comments carry classes (`# @required-builtin` ...), one-line reasons and the modules
 * an `=m` setting needs (`# module: a b`). The syntax is described at the top of
 * kernel-config/metal-hammer.config. Pure; errors name the line.
 */
import { AgentError } from "../../platform/errors.ts";
import { ASSIGN, CONFIG_PREFIX, NOT_SET } from "./dotconfig.ts";
import { normaliseModuleName } from "../kmod/names.ts";

export const CLASSES = ["required-builtin", "required", "recommended", "must-not"] as const;
export type OptionClass = (typeof CLASSES)[number];

export interface FragmentEntry {
  /** Option name without the CONFIG_ prefix. */
  readonly name: string;
  readonly class: OptionClass;
  /** The value merge_config.sh sets: y, m, or n for `# CONFIG_X is not set`. */
  readonly value: "y" | "m" | "n";
  readonly reason: string;
  /** Modules (normalised names) an =m setting needs in the initramfs; empty when none are known. */
  readonly modules: readonly string[];
  readonly line: number;
}

export interface Fragment {
  readonly source: string;
  readonly entries: readonly FragmentEntry[];
}

const MARKER = /^#\s*@(\S+)\s*$/;
const MODULE_LINE = /^#\s*module:\s*(.*)$/;

function isClass(s: string): s is OptionClass {
  return (CLASSES as readonly string[]).includes(s);
}

export function parseFragment(text: string, source: string): Fragment {
  const entries: FragmentEntry[] = [];
  const seen = new Map<string, number>();
  let cls: OptionClass | undefined;
  let reason: string | undefined;
  let modules: string[] = [];
  const fail = (line: number, message: string): never => {
    throw new AgentError("kconfig_input", `${source}:${line}: ${message}`, { source, line });
  };

  text.split("\n").forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trimEnd();
    const marker = MARKER.exec(line);
    const moduleLine = MODULE_LINE.exec(line);
    const notSet = NOT_SET.exec(line);
    const assign = ASSIGN.exec(line);
    if (line === "") {
      reason = undefined;
      modules = [];
    } else if (marker) {
      const name = marker[1] as string;
      if (!isClass(name)) fail(lineNo, `unknown class @${name} (expected one of ${CLASSES.map((c) => "@" + c).join(", ")})`);
      cls = name as OptionClass;
      reason = undefined;
      modules = [];
    } else if (moduleLine) {
      const names = (moduleLine[1] as string).split(/[\s,]+/).filter((s) => s !== "");
      if (names.length === 0 || names.some((n) => !/^[A-Za-z0-9_-]+$/.test(n))) fail(lineNo, `"# module:" expects module names, got ${JSON.stringify(moduleLine[1])}`);
      modules.push(...names.map(normaliseModuleName));
    } else if (notSet || assign) {
      const name = ((notSet ?? assign) as RegExpExecArray)[1] as string;
      const value = notSet ? "n" : (assign as RegExpExecArray)[2];
      if (value !== "y" && value !== "m" && value !== "n") fail(lineNo, `${CONFIG_PREFIX}${name}: the fragment sets only y, m or "is not set", got ${JSON.stringify(value)}`);
      if (cls === undefined) fail(lineNo, `${CONFIG_PREFIX}${name} comes before any class marker`);
      if (reason === undefined) fail(lineNo, `${CONFIG_PREFIX}${name} has no reason (a "# ..." line right above it)`);
      const prev = seen.get(name);
      if (prev !== undefined) fail(lineNo, `${CONFIG_PREFIX}${name} is listed twice (first on line ${prev})`);
      const c = cls as OptionClass;
      const v = value as "y" | "m" | "n";
      if (c === "required-builtin" && v !== "y") fail(lineNo, `${CONFIG_PREFIX}${name}: @required-builtin options must be =y`);
      if (c === "required" && v === "n") fail(lineNo, `${CONFIG_PREFIX}${name}: @required options must be =y or =m`);
      if (c === "required" && modules.length === 0) fail(lineNo, `${CONFIG_PREFIX}${name}: @required options need a "# module:" line (the module an =m setting builds)`);
      if (c === "must-not" && v !== "n") fail(lineNo, `${CONFIG_PREFIX}${name}: @must-not options must be "# ${CONFIG_PREFIX}${name} is not set"`);
      seen.set(name, lineNo);
      entries.push({ name, class: c, value: v, reason: reason as string, modules, line: lineNo });
      reason = undefined;
      modules = [];
    } else if (line.startsWith("#")) {
      if (line.includes(CONFIG_PREFIX)) fail(lineNo, `a comment spells an option with its ${CONFIG_PREFIX} prefix; merge_config.sh would take it for a setting`);
      const text = line.replace(/^#\s?/, "").trim();
      reason = text === "" ? undefined : text;
    } else {
      fail(lineNo, `expected ${CONFIG_PREFIX}NAME=y|m, "# ${CONFIG_PREFIX}NAME is not set", "# @class", "# module: ..." or a # comment, got ${JSON.stringify(line.slice(0, 80))}`);
    }
  });
  if (entries.length === 0) throw new AgentError("kconfig_input", `${source}: the fragment lists no options`, { source });
  return { source, entries };
}
