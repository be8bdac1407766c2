/**
 * Imports only point down: every part of src/ has a layer, and a file may
 * import only from parts of its own or a lower layer. A part is a room of src/
 * (`install`, `cli`, a top-level file) or a folder of a room (`network/netlink`). Cycles between files
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
  "platform/ids": 0,
  gen: 0,
  "platform/sys": 1,
  "platform/fs": 1,
  "platform/log": 1,
  config: 2,
  "kernel/kmod": 2,
  "platform/io": 2,
  "network/dns": 2,
  "network/netlink": 3,
  "clients/http": 3,
  "kernel/kconfig": 3,
  "network/lldp": 4,
  "ops/clock": 4,
  "ops/watchdog": 4,
  "ops/remote-log": 4,
  "ops/reboot": 4,
  "ops/status": 4,
  "machine/disk": 4,
  "install/efi": 4,
  "network/net": 4,
  "clients/metal-boot": 5,
  "clients/api": 5,
  "clients/image-cache": 5,
  "machine/inventory": 5,
  "machine/bmc": 5,
  "agent/handoff": 5,
  "agent/provision": 6,
  install: 6,
  "agent/operations": 6,
  "agent/flow": 7,
  agent: 8,
  init: 9,
  cli: 10,
  "main.ts": 11,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

/** The longest LAYERS key that holds the file; else its room/folder (or its room), which then fails the test. */
function partOf(file: string): string {
  const segs = relative(SRC, file).split("/");
  for (let n = segs.length - 1; n >= 1; n--) {
    const part = segs.slice(0, n).join("/");
    if (part in LAYERS) return part;
  }
  return segs.slice(0, Math.min(2, segs.length - 1) || 1).join("/");
}

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
