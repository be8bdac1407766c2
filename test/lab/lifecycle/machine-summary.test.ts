/**
 * The summary lines the direct lab and the chain print for their machine (lab/lifecycle/machine-summary.ts),
 * read from a stand-ins' state dir as the stand-ins leave it.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machineSummary } from "../../../lab/lifecycle/machine-summary.ts";

const UUID = "00000000-6d68-6c00-0000-000000000001";
const dirs: string[] = [];
const stateDir = (files: Record<string, unknown>): string => {
  const dir = mkdtempSync(join(tmpdir(), "mh-summary-"));
  dirs.push(dir);
  for (const [name, v] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(v));
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("a registered machine on a leaf pair: its connections, then its liveliness at the allocation", () => {
  const dir = stateDir({
    "standins.json": { ready: true },
    "connections.json": {
      [UUID]: [
        { switch: "leaf01", port: "Ethernet0" },
        { switch: "leaf02", port: "Ethernet0" },
      ],
    },
    "liveliness.json": {
      events: {},
      allocationTries: [
        {
          uuid: UUID,
          at: "2026-12-05T21:00:01Z",
          liveliness: "Alive",
          events: [{ event: "MACHINE_PROVISIONING_EVENT_TYPE_PXE_BOOTING", message: "pxe", time: "2026-12-05T21:00:00Z" }],
        },
      ],
    },
  });
  const s = machineSummary(dir, UUID, true, []);
  expect(s.connections).toBe("connected: leaf01 Ethernet0, leaf02 Ethernet0");
  expect(s.lines).toEqual([
    "connected: leaf01 Ethernet0, leaf02 Ethernet0",
    "before the allocation at 2026-12-05T21:00:01Z: events PXE_BOOTING at 2026-12-05T21:00:00Z (pxe); liveliness Alive -> allocated",
  ]);
});

test("the stand-ins ran but the machine never registered: 'nothing yet', and no events", () => {
  const s = machineSummary(stateDir({ "standins.json": { ready: true } }), UUID, true, []);
  expect(s.connections).toBeUndefined();
  expect(s.lines).toEqual([
    "connected: nothing yet (the machine did not register)",
    "events: none recorded (no liveliness.json: the machine got no event and no allocation was tried)",
  ]);
});

test("no switch table and no stand-ins (placeholder servers): no line at all", () => {
  expect(machineSummary(stateDir({}), UUID, false, []).lines).toEqual([]);
});
