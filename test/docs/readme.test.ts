import { expect, test } from "bun:test";
import { eventsDoc, fillTables } from "../../tools/readme-tables.ts";

const readme = await Bun.file(new URL("../../README.md", import.meta.url)).text();

test("README's parameter and exit-code tables match the code", () => {
  expect(fillTables(readme)).toBe(readme);
});

test("README shows the two commands", () => {
  expect(readme).toContain("make lab");
  expect(readme).toContain("make test");
});

test("docs/events.md lists exactly the event vocabulary of src/log/events.ts", async () => {
  const doc = await Bun.file(new URL("../../docs/events.md", import.meta.url)).text();
  expect(doc).toBe(eventsDoc());
});
