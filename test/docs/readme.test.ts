import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PARAMS } from "../../src/config/params.ts";
import { eventsDoc, fillTables, GENERATED_DOCS } from "../../tools/readme-tables.ts";

const readme = await Bun.file(new URL("../../README.md", import.meta.url)).text();

test("README's parameter and exit-code tables match the code", () => {
  expect(fillTables(readme)).toBe(readme);
});

/** The front page stays a front page (9.1 KB when set, ~10% room): figures, status, history and the full tables live in docs/. */
export const README_MAX_BYTES = 10 * 1024;

test(`README.md stays under ${README_MAX_BYTES / 1024} KB`, () => {
  expect(new TextEncoder().encode(readme).length).toBeLessThan(README_MAX_BYTES);
});

test("the generated docs/ pages (parameters, exit codes, events) match the code", async () => {
  for (const [page, make] of Object.entries(GENERATED_DOCS)) expect([page, await Bun.file(new URL(`../../${page}`, import.meta.url)).text()]).toEqual([page, make()]);
});

test("every parameter's README brief is one short line (the whole text is in docs/parameters.md)", () => {
  const long = Object.entries(PARAMS).filter(([, v]) => v.brief.length === 0 || v.brief.length > 60 || v.brief.includes("|"));
  expect(long.map(([k]) => k)).toEqual([]);
});

test('README\'s "Where to read on" links every page of docs/', () => {
  const index = readme.slice(readme.indexOf("\n## Where to read on\n"));
  const pages = readdirSync(new URL("../../docs", import.meta.url).pathname).filter((n) => n.endsWith(".md"));
  expect(pages.filter((n) => !index.includes(`](docs/${n})`))).toEqual([]);
});

test("README shows the two commands", () => {
  expect(readme).toContain("make lab");
  expect(readme).toContain("make test");
});

test("docs/events.md lists exactly the event vocabulary of src/platform/log/events.ts", async () => {
  const doc = await Bun.file(new URL("../../docs/events.md", import.meta.url)).text();
  expect(doc).toBe(eventsDoc());
});

/**
 * The README's source-layout diagram: each line starts with the parts it describes
 * (words ending in `/` or `.ts`);
 * unindented lines the repository's top level, lines indented by two spaces the parts
 * of src/. Both directions are checked against the tree.
 */
test("README's source-layout diagram names every top-level directory and every part of src/, and nothing that is not there", () => {
  const root = new URL("../..", import.meta.url).pathname;
  const heading = readme.indexOf("\n## Source layout\n");
  expect(heading).toBeGreaterThan(-1);
  const start = readme.indexOf("```", heading);
  const block = readme.slice(readme.indexOf("\n", start) + 1, readme.indexOf("```", start + 3));
  const top: string[] = [];
  const src: string[] = [];
  for (const line of block.split("\n")) {
    const indented = /^ {2}\S/.test(line);
    if (!indented && /^\s/.test(line)) continue; // a continuation of the text column
    const words = line.trim().split(/\s+/);
    const n = words.findIndex((w) => !/(\/|\.ts)$/.test(w));
    (indented ? src : top).push(...(n < 0 ? words : words.slice(0, n)).filter((w) => w !== ""));
  }
  const ignored = new Set([
    ".git",
    ...readFileSync(join(root, ".gitignore"), "utf8")
      .split("\n")
      .filter((l) => l.endsWith("/"))
      .map((l) => l.slice(0, -1)),
  ]);
  const dirs = (dir: string, skip: Set<string>) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((d) => !skip.has(d.name) && (d.isDirectory() || (dir.endsWith("src") && d.name.endsWith(".ts"))))
      .map((d) => (d.isDirectory() ? `${d.name}/` : d.name))
      .sort();
  expect([...top].sort()).toEqual(dirs(root, ignored));
  expect([...src].sort()).toEqual(dirs(join(root, "src"), new Set()));
});
