/**
 * docs/status.md is a table to scan: every cell short (details belong in the area's
 * doc), every row linking at least one doc.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const STATUS = resolve(import.meta.dir, "../../docs/status.md");
/** Longest cell, in characters: a sentence or two; the area's doc says the rest. */
export const MAX_CELL = 200;

const rows = readFileSync(STATUS, "utf8")
  .split("\n")
  .filter((l) => l.startsWith("| ") && !l.startsWith("| area |"))
  .map((l) => l.slice(2, -2).split(" | "));

test("docs/status.md has a row per area, each with four cells", () => {
  expect(rows.length).toBeGreaterThan(10);
  expect(rows.filter((r) => r.length !== 4)).toEqual([]);
});

test(`every cell of docs/status.md is at most ${MAX_CELL} characters`, () => {
  expect(rows.flat().filter((c) => c.length > MAX_CELL)).toEqual([]);
});

test("every row of docs/status.md links the area's doc", () => {
  expect(rows.filter((r) => !/\]\([^)]+\.md(#[^)]*)?\)/.test(r[3]!)).map((r) => r[0])).toEqual([]);
});
