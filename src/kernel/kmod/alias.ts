/**
 * modules.alias: which module drives a device, by the device's modalias
 * (`/sys/bus/<bus>/devices/<dev>/modalias`, e.g. `pci:v00008086d00001591sv...`). Lines are
 * `alias <pattern> <module>` with fnmatch patterns (`*`, `?`, `[...]`), as depmod
 * writes them and modprobe matches them. Pure: parse, render a subset for the
 * initramfs, match modaliases.
 */
import { ModuleError, normaliseModuleName } from "./names.ts";

export interface ModuleAlias {
  readonly pattern: string;
  readonly module: string;
}

export function parseModulesAlias(text: string, source = "modules.alias"): ModuleAlias[] {
  const out: ModuleAlias[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const f = line.split(/\s+/);
    if (f.length !== 3 || f[0] !== "alias") throw new ModuleError(`${source}:${i + 1}: expected "alias <pattern> <module>", got ${JSON.stringify(line.slice(0, 80))}`);
    out.push({ pattern: f[1] as string, module: normaliseModuleName(f[2] as string) });
  });
  return out;
}

/** The alias lines of exactly these modules, in the input's order. */
export function renderModulesAlias(aliases: readonly ModuleAlias[], modules: ReadonlySet<string>): string {
  return aliases
    .filter((a) => modules.has(a.module))
    .map((a) => `alias ${a.pattern} ${a.module}\n`)
    .join("");
}

/** fnmatch(3) without flags: `*` any run, `?` one character, `[...]` a class (`!` or `^` negates). */
export function globRegExp(pattern: string): RegExp {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) {
        re += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const neg = body.startsWith("!") || body.startsWith("^");
      if (neg) body = body.slice(1);
      re += `[${neg ? "^" : ""}${body.replace(/[\\\]^]/g, (m) => "\\" + m)}]`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, (m) => "\\" + m);
  }
  return new RegExp(re + "$", "s");
}

export interface AliasMatcher {
  /** The modules whose aliases match this modalias (several can: modprobe loads them all). */
  modulesFor(modalias: string): string[];
}

export function aliasMatcher(aliases: readonly ModuleAlias[]): AliasMatcher {
  // Bucketed by the bus prefix before the first ':' (pci, virtio, scsi, ...): a modalias only meets its own bus's patterns.
  const buckets = new Map<string, { re: RegExp; module: string }[]>();
  const wild: { re: RegExp; module: string }[] = [];
  for (const a of aliases) {
    const colon = a.pattern.indexOf(":");
    const prefix = colon > 0 ? a.pattern.slice(0, colon) : "";
    const entry = { re: globRegExp(a.pattern), module: a.module };
    if (prefix === "" || /[*?[]/.test(prefix)) wild.push(entry);
    else buckets.set(prefix, [...(buckets.get(prefix) ?? []), entry]);
  }
  return {
    modulesFor(modalias) {
      const colon = modalias.indexOf(":");
      const cands = [...(buckets.get(colon > 0 ? modalias.slice(0, colon) : "") ?? []), ...wild];
      const out: string[] = [];
      for (const c of cands) if (c.re.test(modalias) && !out.includes(c.module)) out.push(c.module);
      return out;
    },
  };
}
