/**
 * Imports point down: nothing below the flow (net, inventory, handoff, boot, api,
 * provision, image, lldp) imports from src/flow or src/cli, and the flow imports no
 * command (src/cli). Read from the source text of src/.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const SRC = join(import.meta.dir, "../../src");
const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => relative(SRC, join(e.parentPath, e.name)));
const importsOf = (f: string) => [...readFileSync(join(SRC, f), "utf8").matchAll(/^import[^"]*"([^"]+)"/gm)].map((m) => join(f, "..", m[1] ?? "")).map((p) => p.replace(/\\/g, "/"));

describe("import direction around the flow", () => {
  test("no module below the flow imports src/flow or src/cli", () => {
    const below = ["net/", "inventory/", "handoff/", "boot/", "api/", "provision/", "image/", "lldp/", "gen/"];
    const bad = files.filter((f) => below.some((b) => f.startsWith(b))).flatMap((f) => importsOf(f).filter((i) => i.startsWith("flow/") || i.startsWith("cli/")).map((i) => `${f} -> ${i}`));
    expect(bad).toEqual([]);
  });

  test("the flow imports no command (cli) module", () => {
    const bad = files.filter((f) => f.startsWith("flow/")).flatMap((f) => importsOf(f).filter((i) => i.startsWith("cli/")).map((i) => `${f} -> ${i}`));
    expect(bad).toEqual([]);
  });

  test("the check sees imports at all", () => {
    expect(importsOf("flow/run-flow.ts")).toContain("flow/services.ts");
  });
});
