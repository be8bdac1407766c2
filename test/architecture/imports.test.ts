/**
 * Imports only point down, in src/ and in lab/ alike: every part of a tree has a layer, and
 * a file may import only from parts of its own or a lower layer. A part of src/ is a room
 * (a top-level folder: `network`, `agent`) or `main.ts`; a part of lab/ is a folder
 * (`standins`, `rig`); lab/ has no loose files at its top. Inside a part,
 * files import each other freely; cycles between files are refused everywhere. lab/ sits
 * above src/ (it may import the agent's code; src/ never imports lab/). Build-time tools
 * (tools/) are not checked.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const LAB = resolve(import.meta.dir, "../../lab");

/**
 * src/'s rooms, lower number = lower layer, read bottom-up as the tree is: the generated
 * wire types, the platform (errors, exit codes, libc, files, logs), the domain libraries
 * (each its pure core beside its I/O, in the order they use each other), the agent (the
 * flow), the entry (PID 1's init, the CLI, main.ts). A room not listed here fails the
 * test (say where it belongs); a room's folders share its layer.
 */
export const LAYERS: Readonly<Record<string, number>> = {
  gen: 0,
  platform: 1,
  config: 2,
  kernel: 2,
  network: 3,
  clients: 3,
  machine: 4,
  install: 4,
  ops: 5,
  agent: 6,
  init: 7,
  cli: 7,
  "main.ts": 8,
};

/**
 * lab/'s order, lower first, one folder per layer: the shared tools (waits, QEMU, OVMF,
 * the serial console, the kernel) beside the iPXE, image and BMC kits; the network rig
 * (namespace, taps, radvd, the direct lab's names); the stand-ins (metal-boot, apiserver,
 * image cache, and the partition's NTP, DNS and lldpd switches); the lifecycle (rig ->
 * stand-ins -> machines -> collect -> clean-up); the three drivers that are plans over it.
 */
export const LAB_LAYERS: Readonly<Record<string, number>> = {
  base: 0,
  ipxe: 0,
  images: 0,
  bmc: 0,
  rig: 1,
  standins: 2,
  lifecycle: 3,
  direct: 4,
  chain: 4,
  fleet: 4,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

interface Tree {
  readonly name: string;
  readonly root: string;
  readonly layers: Readonly<Record<string, number>>;
  /** The part a file of the tree belongs to. */
  partOf(file: string): string;
}

/** src/: its room (the top-level folder), or the file itself at the top. */
const srcPartOf = (file: string): string => relative(SRC, file).split("/")[0] as string;

/** lab/: its folder, or the file itself at the top. */
const labPartOf = (file: string): string => relative(LAB, file).split("/")[0] as string;

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']|^\s*import\s+["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|new\s+URL\(\s*["'](\.{1,2}\/[^"']+\.ts)["']/g;

/** Every relative import of a file, resolved (whatever tree it lands in). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const re of [IMPORT, DYNAMIC]) for (const m of text.matchAll(re)) out.push(resolve(dirname(file), (m[1] ?? m[2])!));
  return out;
}

const TREES: readonly Tree[] = [
  { name: "src", root: SRC, layers: LAYERS, partOf: srcPartOf },
  { name: "lab", root: LAB, layers: LAB_LAYERS, partOf: labPartOf },
];

for (const tree of TREES) {
  const inside = (p: string) => p.startsWith(tree.root + "/");
  const files = sources(tree.root);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter(inside)]));
  const name = (f: string) => relative(tree.root, f);

  describe(`${tree.name}/ imports`, () => {
    test(`every part of ${tree.name}/ has a layer`, () => {
      const unknown = [...new Set(files.map(tree.partOf))].filter((p) => !(p in tree.layers));
      expect(unknown).toEqual([]);
    });

    test("no file imports from a higher layer", () => {
      const upward: string[] = [];
      for (const [file, deps] of graph) {
        const from = tree.partOf(file);
        for (const dep of deps) {
          const to = tree.partOf(dep);
          if (to !== from && (tree.layers[to] ?? 99) > (tree.layers[from] ?? 99))
            upward.push(`${name(file)} -> ${name(dep)} (${from}:${tree.layers[from]} -> ${to}:${tree.layers[to]})`);
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
          if (state.get(d) === "open") cycles.push([...stack.slice(stack.indexOf(d)), d].map(name).join(" -> "));
          else if (!state.has(d)) visit(d);
        }
        stack.pop();
        state.set(f, "done");
      };
      for (const f of files) if (!state.has(f)) visit(f);
      expect(cycles).toEqual([]);
    });
  });
}

test("src/ never imports lab/ (the lab drives the agent, not the other way round)", () => {
  const intoLab = sources(SRC).flatMap((f) =>
    importsOf(f)
      .filter((d) => d.startsWith(LAB + "/"))
      .map((d) => `${relative(SRC, f)} -> ${relative(LAB, d)}`),
  );
  expect(intoLab).toEqual([]);
});

test("every file name occurs once across src/ and lab/ (systemd's rule: a name says which file)", () => {
  const byName = new Map<string, string[]>();
  for (const f of [...sources(SRC), ...sources(LAB)]) {
    const name = f.slice(f.lastIndexOf("/") + 1);
    byName.set(name, [...(byName.get(name) ?? []), relative(resolve(SRC, ".."), f)]);
  }
  expect([...byName.values()].filter((fs) => fs.length > 1)).toEqual([]);
});
