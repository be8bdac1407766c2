/**
 * The apiserver stand-in's event containers and allocation check, as upstream SendEvent and
 * findWaitingMachine keep them (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:88-146,
 * machine-create.go:326-370), and the lab summary's lines made from them.
 */
import { expect, test } from "bun:test";
import { EVENTS_KEPT, notAllocatable, registeredContainer, withEvent } from "../../../lab/standins/liveliness.ts";
import { livelinessLines } from "../../../lab/standins/liveliness-summary.ts";
import { MachineBook } from "../../../lab/standins/machines.ts";
import { waitFor } from "../../../lab/base/wait.ts";

const UUID = "00000000-6d68-6300-0000-000000000036";
const ev = (i: number) => ({ time: `2026-12-05T17:00:${String(i % 60).padStart(2, "0")}.000Z`, event: "MACHINE_PROVISIONING_EVENT_TYPE_PXE_BOOTING", message: `m${i}` });

test("the first event makes an Alive container; later events are appended and only the newest 100 kept", () => {
  const first = withEvent(undefined, ev(0));
  expect(first).toEqual({ liveliness: "Alive", events: [ev(0)] });
  let c = first;
  for (let i = 1; i <= 120; i++) c = withEvent(c, ev(i));
  expect(c.events).toHaveLength(EVENTS_KEPT);
  expect(c.events[0]).toEqual(ev(21));
  expect(c.events.at(-1)).toEqual(ev(120));
  // A Dead machine stays Dead when an event is stored (only the fsm/evaluator changes liveliness).
  expect(withEvent({ liveliness: "Dead", events: [] }, ev(1)).liveliness).toBe("Dead");
});

test("a machine without an event container, or not Alive, is not allocatable; an Alive one is", () => {
  expect(notAllocatable(UUID, undefined)).toBe(`no machine available: machine ${UUID} has no provisioning event container (no event was ever sent for it)`);
  expect(notAllocatable(UUID, { liveliness: "Dead", events: [ev(1)] })).toBe(`no machine available: machine ${UUID} is Dead, not Alive`);
  expect(notAllocatable(UUID, registeredContainer(undefined, "T"))).toBe(
    `no machine available: machine ${UUID} is of no liveliness (its container was made by Register, before any event), not Alive`,
  );
  expect(notAllocatable(UUID, { liveliness: "Alive", events: [ev(1)] })).toBeUndefined();
});

test("Register makes a container with an Alive event and no liveliness only when there is none", () => {
  expect(registeredContainer(undefined, "T")).toEqual({ liveliness: "", events: [{ time: "T", event: "MACHINE_PROVISIONING_EVENT_TYPE_ALIVE", message: "machine registered" }] });
  const alive = withEvent(undefined, ev(1));
  expect(registeredContainer(alive, "T")).toBe(alive);
});

test("the lab operator does not allocate a machine that registered before any event, not even after one; one whose boot event came first it does", async () => {
  const book = new MachineBook();
  book.allocateAfterMs = 0;
  book.register(UUID, { uuid: UUID });
  await waitFor(() => book.allocationTries.length === 1, 2_000, "the operator's try");
  expect(book.allocations.has(UUID)).toBe(false);
  expect(book.allocationTries[0]).toMatchObject({ uuid: UUID, liveliness: "", refused: expect.stringContaining("made by Register") });
  book.sendEvent(UUID, ev(1));
  expect(book.allocateWaiting(UUID, { uuid: UUID, hostname: "h" })).toContain("not Alive");

  const other = "00000000-6d68-6300-0000-000000000037";
  book.allocateAfterMs = undefined;
  book.sendEvent(other, ev(2));
  book.register(other, { uuid: other });
  expect(book.allocateWaiting(other, { uuid: other, hostname: "h" })).toBeUndefined();
  expect(book.allocations.get(other)).toEqual({ uuid: other, hostname: "h" });
  expect(book.allocationTries.at(-1)).toEqual({ uuid: other, at: expect.any(String), liveliness: "Alive", events: [ev(2)] });
});

test("the lab summary names the events and liveliness each allocation try saw, and its outcome", () => {
  const file = JSON.stringify({
    events: { [UUID]: { liveliness: "Alive", events: [ev(1)] } },
    allocationTries: [
      { uuid: UUID, at: "T1", refused: "no machine available: x", liveliness: null, events: [] },
      { uuid: UUID, at: "T2", liveliness: "Alive", events: [ev(1)] },
      { uuid: "other", at: "T3", liveliness: "Alive", events: [] },
    ],
  });
  expect(livelinessLines(file, UUID)).toEqual([
    "before the allocation at T1: events no events; liveliness none (no event container) -> refused: no machine available: x",
    "before the allocation at T2: events PXE_BOOTING at 2026-12-05T17:00:01.000Z (m1); liveliness Alive -> allocated",
  ]);
  expect(livelinessLines(JSON.stringify({ events: { [UUID]: { liveliness: "Alive", events: [ev(2)] } }, allocationTries: [] }), UUID)).toEqual([
    "events: PXE_BOOTING at 2026-12-05T17:00:02.000Z (m2); liveliness Alive; no allocation tried",
  ]);
  expect(livelinessLines(undefined, UUID)).toEqual(["events: none recorded (no liveliness.json: the machine got no event and no allocation was tried)"]);
});
