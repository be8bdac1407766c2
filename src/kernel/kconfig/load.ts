/**
 * The I/O edge of the kconfig check: reads the .config, an optional fragment file and
 * the module set through a small file-reading interface (the CLI passes its Io) and
 * hands text to the pure parsers. Every read failure or bad module name is a
 * kconfig_input error naming the path.
 */
import { AgentError } from "../../platform/errors.ts";
import { parseDotConfig, type DotConfig } from "./dotconfig.ts";
import type { ModuleSet } from "./evaluate.ts";
import { BUILTIN_FRAGMENT_SOURCE, BUILTIN_FRAGMENT_TEXT } from "./builtin-fragment.ts";
import { parseFragment, type Fragment } from "./fragment.ts";
import { isModulePath, ModuleError, moduleNameOfFile, parseModuleArg, parseModuleList } from "../kmod/names.ts";

/** What the check reads files through (declared here, so kconfig needs nothing from the CLI). */
export interface KconfigIo {
  readFile(path: string): Promise<Uint8Array>;
  /** Files under a directory (recursive), or undefined when the path is not a directory. */
  listFiles?(path: string): Promise<string[] | undefined>;
}

type Io = KconfigIo;

/** Module-name errors from the shared parser become kconfig_input errors with the same message. */
function asInput<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ModuleError) throw new AgentError("kconfig_input", e.message);
    throw e;
  }
}

async function readText(io: Io, path: string, what: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await io.readFile(path);
  } catch (e) {
    throw new AgentError("kconfig_input", `cannot read the ${what} ${path}: ${(e as Error).message}`, { path });
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AgentError("kconfig_input", `the ${what} ${path} is not UTF-8 text`, { path });
  }
}

export async function loadDotConfig(io: Io, path: string): Promise<DotConfig> {
  return parseDotConfig(await readText(io, path, "kernel config"), path);
}

export async function loadFragment(io: Io, path: string | undefined): Promise<Fragment> {
  if (path === undefined) return parseFragment(BUILTIN_FRAGMENT_TEXT, BUILTIN_FRAGMENT_SOURCE);
  return parseFragment(await readText(io, path, "fragment"), path);
}

/**
 * `--modules`: a comma list of names (no `/` or `.` in it), a directory searched for
 * module files, or a list file (names, or modules.dep / modules.order lines).
 */
export async function loadModuleSet(io: Io, arg: string): Promise<ModuleSet> {
  if (!isModulePath(arg)) return { source: arg, names: new Set(asInput(() => parseModuleArg(arg))) };
  const files = io.listFiles ? await io.listFiles(arg) : undefined;
  if (files !== undefined) {
    const names = files.map(moduleNameOfFile).filter((n): n is string => n !== undefined);
    if (names.length === 0) throw new AgentError("kconfig_input", `the module directory ${arg} holds no *.ko, *.ko.xz, *.ko.zst or *.ko.gz files`, { path: arg });
    return { source: arg, names: new Set(names) };
  }
  const text = await readText(io, arg, "module list");
  return { source: arg, names: new Set(asInput(() => parseModuleList(text, arg))) };
}
