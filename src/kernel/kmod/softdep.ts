/**
 * modules.softdep: modules a module needs loaded first although it does not link
 * against them (`softdep ext4 pre: crypto-crc32c`: ext4 and jbd2 allocate the crc32c
 * algorithm, libcrc32c fails to load without one). The names are module names or
 * aliases; the initramfs build resolves them to modules (every module an alias names,
 * as modprobe does) and writes the image's table with module names only. Only `pre:`
 * is kept: `post:` modules are optional extras. Pure.
 */
import type { ModuleAlias } from "./alias.ts";
import { ModuleError, normaliseModuleName } from "./names.ts";

export type Softdeps = ReadonlyMap<string, readonly string[]>;

export function parseModulesSoftdep(text: string, source = "modules.softdep"): Map<string, string[]> {
  const out = new Map<string, string[]>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") return;
    const f = line.split(/\s+/);
    if (f[0] !== "softdep" || f.length < 3)
      throw new ModuleError(`${source}:${i + 1}: expected "softdep <module> pre: <names> post: <names>", got ${JSON.stringify(line.slice(0, 80))}`);
    const pre: string[] = [];
    let section = "";
    for (const w of f.slice(2)) {
      if (w === "pre:" || w === "post:") section = w;
      else if (section === "pre:") pre.push(w);
    }
    const mod = normaliseModuleName(f[1] as string);
    out.set(mod, [...(out.get(mod) ?? []), ...pre]);
  });
  return out;
}

/**
 * Each module's pre-softdeps as module names: a name that is a module stays, an alias
 * becomes every module it names (crypto-crc32c: crc32c_intel and crc32c_generic);
 * names that resolve to nothing in `known` are dropped (not shipped: the module loads
 * without, as with modprobe).
 */
export function resolveSoftdeps(softdeps: Softdeps, aliases: readonly ModuleAlias[], known: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [mod, names] of softdeps) {
    const mods: string[] = [];
    for (const n of names) {
      const direct = normaliseModuleName(n);
      const hits = known.has(direct) ? [direct] : aliases.filter((a) => a.pattern === n && known.has(a.module)).map((a) => a.module);
      for (const h of hits) if (!mods.includes(h) && h !== mod) mods.push(h);
    }
    if (mods.length > 0) out.set(mod, mods);
  }
  return out;
}

export function renderModulesSoftdep(softdeps: Softdeps, modules: ReadonlySet<string>): string {
  return [...softdeps.entries()]
    .filter(([m, pre]) => modules.has(m) && pre.length > 0)
    .map(([m, pre]) => `softdep ${m} pre: ${pre.join(" ")}\n`)
    .join("");
}
