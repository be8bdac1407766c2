import { expect, test } from "bun:test";
import { fillTables } from "../../tools/readme-tables.ts";

const readme = await Bun.file(new URL("../../README.md", import.meta.url)).text();

test("README's parameter and exit-code tables match the code", () => {
  expect(fillTables(readme)).toBe(readme);
});

test("README shows the two commands", () => {
  expect(readme).toContain("make lab");
  expect(readme).toContain("make test");
});
