/**
 * Comments cite upstream as `owner/repo@commit path:line`, never as a path outside the
 * repository (`../shared/...`, `reference/<folder>/...`): a reader of the repository has
 * neither. The agent's own code (src/) never names ../shared at all; tests and tools
 * that read the pinned protos there at test time are outside src/.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** The upstream commits the project is built against (the same pins proto/README.md and the contract fingerprint use). */
export const PINNED: Readonly<Record<string, readonly string[]>> = {
  "metal-stack/api": ["e6201fcb"],
  "metal-stack/metal-apiserver": ["3f09705a"],
  "metal-stack/pixie": ["8b0f1da5"],
  "metal-stack/os-installer": ["7ea1c98"],
  "metal-stack/metal-hammer": ["ec148e3"],
  "metal-stack/metal-core": ["eb8219c1", "91421913"],
  "sonic-net/sonic-buildimage": ["086b03bd"],
  "lldpd/lldpd": ["7a595f1a"],
  "metal-stack/metal-api": ["a405f46d"],
  "metal-stack/metal-roles": ["56b5da2b"],
  "metal-stack/metal-images": ["1917b767"],
  "metal-stack/go-hal": ["4ca05b53", "cfb22dd4"],
  "bufbuild/protovalidate": ["4baed765"],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" || name === "fixtures" ? [] : files(p);
    return /\.(ts|sh|mk)$/.test(name) || name === "Makefile" ? [p] : [];
  });
}

/** The comment text of a source line: after `//` or `#` at a line start, or a `/** ... *\/` block line. */
function commentOf(line: string): string | undefined {
  const t = line.trimStart();
  if (/^(\/\/|\/\*|\*|#)/.test(t)) return t;
  const i = line.indexOf(" // ");
  return i >= 0 ? line.slice(i) : undefined;
}

const lines = (roots: string[]) =>
  roots
    .flatMap((r) => files(join(ROOT, r)))
    .flatMap((f) =>
      readFileSync(f, "utf8")
        .split("\n")
        .map((text, i) => ({ where: `${relative(ROOT, f)}:${i + 1}`, text })),
    );

test("nothing in src/ names ../shared", () => {
  expect(
    lines(["src"])
      .filter((l) => l.text.includes("../shared"))
      .map((l) => l.where),
  ).toEqual([]);
});

test("no comment in src/ cites a path of the reference copies instead of owner/repo@commit", () => {
  const bare = /(^|[\s(])(\.\.\/shared\/)?reference\/[a-z-]+(-v1|-master)?\//;
  expect(
    lines(["src"])
      .filter((l) => bare.test(commentOf(l.text) ?? ""))
      .map((l) => `${l.where}: ${l.text.trim()}`),
  ).toEqual([]);
});

test("every owner/repo@commit citation of a pinned repository names its pinned commit", () => {
  const wrong: string[] = [];
  for (const l of lines(["src", "test", "lab", "tools", "bench", "initramfs", "mk"])) {
    for (const m of l.text.matchAll(/\b([a-z0-9-]+\/[a-z0-9._-]+)@([0-9a-f]{6,40})\b/g)) {
      const pins = PINNED[m[1]!];
      if (pins && !pins.some((p) => m[2]!.startsWith(p) || p.startsWith(m[2]!))) wrong.push(`${l.where}: ${m[0]} (pinned: ${pins.join(", ")})`);
    }
  }
  expect(wrong).toEqual([]);
});
