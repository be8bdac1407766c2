/**
 * Imports only point down, in src/ and in lab/ alike: every part of a tree has a layer, and
 * a file may import only from parts of its own or a lower layer. A part of src/ is a room
 * (`install`, `cli`, a top-level file) or a folder of a room (`network/netlink`); a part of
 * lab/ is a folder (`standins`, `rig`) or a top-level file (`lab.ts`, the direct driver).
 * Cycles between files are refused too. lab/ sits above src/ (it may import the agent's
 * code; src/ never imports lab/). Build-time tools (tools/) are not checked.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const LAB = resolve(import.meta.dir, "../../lab");

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
  "ops/operations": 6,
  "agent/flow": 7,
  agent: 8,
  init: 9,
  cli: 10,
  "main.ts": 11,
};

/**
 * lab/'s order, lower first: tools the others share (waits, QEMU, images, stand-in
 * servers), then the network rig and the plans, then the three drivers (the direct lab,
 * the chain, the fleet) and what runs them.
 */
export const LAB_LAYERS: Readonly<Record<string, number>> = {
  "wait.ts": 0,
  "serial-console.ts": 0,
  "qemu.ts": 0,
  "ovmf.ts": 0,
  "vmlinux.ts": 0,
  "diskless.ts": 0,
  "placeholder-server.ts": 0,
  ipxe: 0,
  images: 0,
  bmc: 0,
  rig: 1,
  "ntp.ts": 1,
  "dnsmasq.ts": 1,
  "timeline.ts": 1,
  "liveliness-summary.ts": 1,
  "kernel.ts": 1,
  "install-media.ts": 1,
  standins: 1,
  "plan.ts": 2,
  "prereqs.ts": 2,
  "lldpd.ts": 3,
  "servers.ts": 3,
  "overlay.ts": 4,
  "lab.ts": 5,
  chain: 5,
  fleet: 5,
  "install-run.ts": 6,
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

/** src/: the longest LAYERS key that holds the file; else its room/folder (or its room), which then fails the test. */
function srcPartOf(file: string): string {
  const segs = relative(SRC, file).split("/");
  for (let n = segs.length - 1; n >= 1; n--) {
    const part = segs.slice(0, n).join("/");
    if (part in LAYERS) return part;
  }
  return segs.slice(0, Math.min(2, segs.length - 1) || 1).join("/");
}

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
