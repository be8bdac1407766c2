/**
 * docs/architecture.md's tree table names every part of src/ with the layer
 * test/architecture/imports.test.ts gives it (read from that file's LAYERS table), and
 * its stage table names every stage runFlow logs (src/agent/run-flow.ts), in order.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const doc = readFileSync(resolve(ROOT, "docs/architecture.md"), "utf8");

/** LAYERS of the imports test, as text: `gen: 0,` or `"main.ts": 8,` lines between its braces. */
function layers(): Map<string, number> {
  const text = readFileSync(resolve(ROOT, "test/architecture/imports.test.ts"), "utf8");
  const block = text.slice(text.indexOf("export const LAYERS"), text.indexOf("};", text.indexOf("export const LAYERS")));
  return new Map([...block.matchAll(/^\s*"?([\w./-]+)"?:\s*(\d+),/gm)].map((m) => [m[1]!, Number(m[2])]));
}

function tableRows(heading: string): string[][] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 1);
  return doc
    .slice(start, end < 0 ? undefined : end)
    .split("\n")
    .filter((l) => l.startsWith("| ") && !/^\| (layer|stage) \|/.test(l))
    .map((l) => l.slice(2, -2).split(" | "));
}

test("the tree table gives every part of src/ the layer the imports test gives it", () => {
  const documented = new Map<string, number>();
  for (const [layer, folders] of tableRows("The tree: one line per folder")) {
    for (const m of folders!.matchAll(/`([\w./-]+?)\/?`/g)) documented.set(m[1]!, Number(layer));
  }
  expect(layers().size).toBeGreaterThan(10);
  expect(Object.fromEntries([...documented].sort())).toEqual(Object.fromEntries([...layers()].sort()));
});

test('the stage table lists the stages the two phases log (their stage("name", ...) calls), in order', () => {
  const flow = ["boot-phase.ts", "provision-phase.ts"].map((f) => readFileSync(resolve(ROOT, "src/agent", f), "utf8")).join("\n");
  const logged = [...flow.matchAll(/\bstage\("([a-z]+)"/g)].map((m) => m[1]!);
  const documented = tableRows("The stages, in order")
    .map((r) => /^`([a-z]+)`$/.exec(r[0]!)?.[1])
    .filter((s) => s !== undefined);
  expect(logged.length).toBeGreaterThan(10);
  expect(documented).toEqual(logged);
});
