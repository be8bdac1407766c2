/**
 * Operations keeps services, not facts of the flow (issue 25): what one stage finds
 * and a later one needs travels in that stage's typed result. This reads the class's
 * field declarations and fails when one is added that is not one of the services or
 * settings below; a new field is either a service (add it here, saying which) or a
 * fact that belongs in a stage's result.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SOURCE = readFileSync(join(import.meta.dir, "../../src/ops/operations/operations.ts"), "utf8");

/** Every field of `class Operations` with what it is. */
const SERVICES: Readonly<Record<string, string>> = {
  shipper: "the log shipper (remote logging)",
  status: "the status file writer",
  sink: "the logger's sink into the shipper",
  "#now": "injected clock",
  "#random": "injected randomness (the planned reboot's jitter)",
  "#hang": "what METAL_DEBUG_HANG does (tests: a recorder)",
  "#hangFlushMs": "METAL_DEBUG_HANG's flush bound",
  "#watchdog": "the hardware watchdog (set once at agent start)",
  "#log": "the agent's logger (set once at agent start)",
  "#uplinks": "the view of the uplink services for status.json (the uplink table and the HTTP client's connector; set once by compose)",
};

function classBody(): string {
  const start = SOURCE.indexOf("export class Operations {");
  if (start < 0) throw new Error("src/ops/operations/operations.ts: no `export class Operations {`");
  return SOURCE.slice(start);
}

/** Fields declared at the class's top level (two-space indent): `[readonly] name[: type] [= value];`. */
function fields(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(/^ {2}(?:(?:readonly|private|public|static|override)\s+)*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*(?::(?:[^;=]|=>)*)?(?:\s=\s|;)/gm)) out.push(m[1]!);
  return out;
}

describe("Operations keeps no fact of the flow", () => {
  test("its fields are the services and settings it was built with, nothing a stage writes for another", () => {
    const found = fields(classBody());
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((f) => !(f in SERVICES))).toEqual([]);
    expect(Object.keys(SERVICES).filter((f) => !found.includes(f))).toEqual([]);
  });

  test("no getter hands a stage's fact back (only the watchdog service is exposed)", () => {
    expect([...classBody().matchAll(/^ {2}get\s+(\w+)\s*\(/gm)].map((m) => m[1])).toEqual(["watchdog"]);
  });

  test("the field reader sees what a flow-state field would look like", () => {
    expect(fields("  #clock: ClockState | undefined;\n  #rebootAt: number | undefined;\n  readonly #f: () => number;\n  readonly x = 1;\n  stage(name: string): void {\n")).toEqual(
      ["#clock", "#rebootAt", "#f", "x"],
    );
  });
});
