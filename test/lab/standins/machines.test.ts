/**
 * The apiserver stand-in's machine book after a power loss: a machine that registers
 * again keeps its allocation (upstream Register updates the machine it finds, never its
 * Allocation: metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:863-877),
 * and a Wait opened then gets it first.
 */
import { expect, test } from "bun:test";
import { MachineBook, labAllocation, waitMessage, type OpenWait } from "../../../lab/standins/machines.ts";
import { waitFor } from "../../../lab/base/wait.ts";

const UUID = "00000000-6d68-6300-0000-000000000027";

test("a machine that registers again keeps its allocation; the lab operator does not allocate it anew", async () => {
  const book = new MachineBook();
  book.allocateAfterMs = 0;
  // Allocatable only once an event made it Alive (liveliness.ts): metal-boot's boot event.
  book.sendEvent(UUID, { time: "2026-12-05T17:00:00.000Z", event: "MACHINE_PROVISIONING_EVENT_TYPE_PXE_BOOTING", message: "ISO boot" });
  book.register(UUID, { uuid: UUID });
  await waitFor(() => book.allocations.has(UUID), 2_000, "the lab operator's allocation");
  const first = book.allocations.get(UUID);
  // The operator's allocation is replaced by the one the tenant got (what a real allocation would be).
  book.allocate(UUID, { ...labAllocation(UUID, true), hostname: "tenant-host" });
  book.register(UUID, { uuid: UUID, again: true });
  expect(book.registered.get(UUID)?.again).toBe(true);
  // An operator timer scheduled by that Register (delay 0) would run before this one, scheduled after it
  // with the same delay (timers of equal delay run in the order they were set), and replace the hostname.
  await new Promise((r) => setTimeout(r, 0));
  expect(book.allocations.get(UUID)?.hostname).toBe("tenant-host");
  expect(first?.hostname).toBe(`lab-${UUID.slice(-4)}`);
});

test("an allocation sent to the open Waits of that machine only, as Wait's message", () => {
  const book = new MachineBook();
  const sent: Record<string, unknown[]> = { a: [], b: [] };
  const wait = (uuid: string, key: "a" | "b"): OpenWait => ({ uuid, sent: 0, send: (v) => sent[key]?.push(v), end: () => {}, cut: () => {} });
  book.opened(wait(UUID, "a"));
  book.opened(wait("00000000-0000-0000-0000-000000000001", "b"));
  const allocation = labAllocation(UUID, true);
  book.allocate(UUID, allocation);
  expect(sent.a).toEqual([waitMessage(allocation)]);
  expect(sent.b).toEqual([]);
});
