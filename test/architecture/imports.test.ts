/**
 * Imports only point down: every top-level part of src/ has a layer, and a file may
 * import only from parts of its own or a lower layer. Cycles between files
 * are refused too. Build-time tools (tools/, lab/) are outside src/ and not checked.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/**
 * Lower number = lower layer. A part may import from parts of the same or a lower layer
 * (never from a higher one); cycles are refused by the test below. A part not listed
 * here fails the test (say where it belongs).
 */
export const LAYERS: Readonly<Record<string, number>> = {
  "errors.ts": 0,
  "exit-codes.ts": 0,
  "version.ts": 0,
  ids: 0,
  gen: 0,
  sys: 1,
  fs: 1,
  log: 1,
  config: 2,
  kmod: 2,
  io: 2,
  netlink: 3,
  http: 3,
  kconfig: 3,
  lldp: 4,
  clock: 4,
  watchdog: 4,
  "remote-log": 4,
  reboot: 4,
  status: 4,
  disk: 4,
  efi: 4,
  net: 4,
  boot: 5,
  api: 5,
  image: 5,
  inventory: 5,
  bmc: 5,
  handoff: 5,
  provision: 6,
  install: 6,
  operations: 6,
  flow: 7,
  init: 8,
  cli: 9,
  "main.ts": 10,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

const partOf = (file: string): string => relative(SRC, file).split("/")[0]!;

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']|^\s*import\s+["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|new\s+URL\(\s*["'](\.{1,2}\/[^"']+\.ts)["']/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const re of [IMPORT, DYNAMIC]) for (const m of text.matchAll(re)) out.push(resolve(dirname(file), (m[1] ?? m[2])!));
  return out.filter((p) => p.startsWith(SRC + "/"));
}

const files = sources(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe("src/ imports", () => {
  test("every part of src/ has a layer", () => {
    const unknown = [...new Set(files.map(partOf))].filter((p) => !(p in LAYERS));
    expect(unknown).toEqual([]);
  });

  test("no file imports from a higher layer", () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      const from = partOf(file);
      for (const dep of deps) {
        const to = partOf(dep);
        if (to !== from && (LAYERS[to] ?? 99) > (LAYERS[from] ?? 99))
          upward.push(`${relative(SRC, file)} -> ${relative(SRC, dep)} (${from}:${LAYERS[from]} -> ${to}:${LAYERS[to]})`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("no import cycle between files", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (f: string): void => {
      state.set(f, "open");
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === "open") cycles.push([...stack.slice(stack.indexOf(d)), d].map((x) => relative(SRC, x)).join(" -> "));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, "done");
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
