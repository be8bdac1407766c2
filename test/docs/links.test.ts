/**
 * Every relative link in README.md and docs/*.md points at a file of the repository,
 * and every `#anchor` into a markdown file at one of its headings (GitHub's slugs:
 * lower case, punctuation dropped, spaces to hyphens, a repeated heading gets -1, -2).
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
];

/** The anchors GitHub gives the headings of a markdown text (code blocks skipped). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links outside code spans and code blocks: `[text](target)`. */
function linksOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]!);
  }
  return out;
}

test("anchorsOf slugs headings as GitHub does", () => {
  expect([...anchorsOf("# A b\n## Where the time went (lab/timeline.ts)\n```\n# not a heading\n```\n## A b\n")]).toEqual(["a-b", "where-the-time-went-labtimelinets", "a-b-1"]);
});

test("every relative link in README.md and docs/ points at a file and heading that exist", () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const link of linksOf(readFileSync(join(ROOT, page), "utf8"))) {
      if (/^[a-z]+:/.test(link)) continue; // https:, mailto:
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
      if (!target.startsWith(ROOT + "/") || !existsSync(target)) {
        broken.push(`${page}: ${link}: no file ${relative(ROOT, target)}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith(".md") && statSync(target).isFile() && !anchorsOf(readFileSync(target, "utf8")).has(anchor)) {
        broken.push(`${page}: ${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
      }
    }
  }
  expect(broken).toEqual([]);
});
