/**
 * modules.dep, shared by the initramfs build (which modules to copy) and PID 1 (in
 * which order to load them). Pure: parses modules.dep and orders wanted modules so
 * every module comes after its dependencies.
 */
import { isModuleFile, ModuleError, moduleNameOfFile, plainModulePath } from "./names.ts";

export { ModuleError } from "./names.ts";

export interface ModuleInfo {
  /** Canonical name: file name without .ko[.xz|.zst|.gz], dashes as underscores. */
  readonly name: string;
  /** Path relative to /lib/modules/<kernel>/, as modules.dep writes it. */
  readonly path: string;
  /** Direct and indirect dependencies as modules.dep lists them (paths). */
  readonly deps: readonly string[];
}

/** `kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko ...` per line. */
export function parseModulesDep(text: string): Map<string, ModuleInfo> {
  const out = new Map<string, ModuleInfo>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new ModuleError(`modules.dep line ${i + 1}: expected "path.ko: dep.ko ...", got ${JSON.stringify(line)}`);
    const path = line.slice(0, colon);
    if (!isModuleFile(path)) throw new ModuleError(`modules.dep line ${i + 1}: ${JSON.stringify(path)} is not a .ko file`);
    const deps = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .filter((d) => d !== "");
    const name = moduleNameOfFile(path);
    if (name === undefined) throw new ModuleError(`modules.dep line ${i + 1}: ${JSON.stringify(path)} has no module name`);
    out.set(name, { name, path, deps });
  });
  return out;
}

/** modules.builtin: paths of modules compiled into the kernel; returns their names. */
export function parseModulesBuiltin(text: string): Set<string> {
  return new Set(
    text
      .split("\n")
      .map((l) => moduleNameOfFile(l.trim()))
      .filter((n): n is string => n !== undefined),
  );
}

export interface LoadPlan {
  /** Modules to load, each after its dependencies, in list order otherwise. */
  readonly load: readonly ModuleInfo[];
  /** Listed modules that are built into the kernel (nothing to load). */
  readonly builtin: readonly string[];
}

/**
 * Orders `wanted` (and their dependencies) for loading. modules.dep already lists a
 * module's whole dependency closure with the ones loaded first at the end (as
 * modprobe reads it); walking each module's own entry keeps this correct even for a
 * hand-trimmed file. Unknown names and cycles throw, naming the module.
 */
export function planModuleLoad(dep: ReadonlyMap<string, ModuleInfo>, wanted: readonly string[], builtin: ReadonlySet<string> = new Set()): LoadPlan {
  const byPath = new Map([...dep.values()].map((m) => [m.path, m]));
  const load: ModuleInfo[] = [];
  const done = new Set<string>();
  const builtins: string[] = [];
  const visit = (m: ModuleInfo, chain: readonly string[]): void => {
    if (done.has(m.name)) return;
    if (chain.includes(m.name)) throw new ModuleError(`module dependency cycle: ${[...chain, m.name].join(" -> ")}`);
    for (const d of [...m.deps].reverse()) {
      const dm = byPath.get(d);
      if (!dm) throw new ModuleError(`module ${m.name} depends on ${d}, which modules.dep does not list`);
      visit(dm, [...chain, m.name]);
    }
    done.add(m.name);
    load.push(m);
  };
  for (const name of wanted) {
    const m = dep.get(name);
    if (m) visit(m, []);
    else if (builtin.has(name)) builtins.push(name);
    else throw new ModuleError(`module ${name} is neither in modules.dep nor built into the kernel`);
  }
  return { load, builtin: builtins };
}

/** The modules.dep lines for exactly these modules, with compression suffixes dropped (the image holds plain .ko). */
export function renderModulesDep(mods: readonly ModuleInfo[]): string {
  return mods.map((m) => `${plainModulePath(m.path)}:${m.deps.map((d) => " " + plainModulePath(d)).join("")}\n`).join("");
}
