import { expect, test } from "bun:test";
import { LineBudget } from "../../../src/network/lldp/line-budget.ts";

test("at most `burst` lines in a window; the rest are counted and handed out once the window ended", () => {
  const b = new LineBudget(2, 10_000);
  expect([0, 1, 2, 3, 4].map((t) => b.take(t * 1000))).toEqual([true, true, false, false, false]);
  // Not yet: the window that skipped them runs until 10 000.
  expect(b.skippedDue(9_999)).toBe(0);
  expect(b.skippedDue(10_000)).toBe(3);
  expect(b.skippedDue(10_001)).toBe(0);
  expect(b.take(10_500)).toBe(true);
});

test("the next window starts with the first line after the last one ended, so lines are at least a window apart per burst", () => {
  const b = new LineBudget(1, 10_000);
  expect(b.take(0)).toBe(true);
  expect(b.take(9_000)).toBe(false);
  expect(b.take(12_000)).toBe(true);
  // The one skipped at 9 000 is due with the line at 12 000 (the malformed-frame line's notLogged).
  expect(b.skippedDue(12_000)).toBe(1);
  expect(b.take(21_999)).toBe(false);
  expect(b.take(22_000)).toBe(true);
  expect(b.skippedDue(22_000)).toBe(1);
});
