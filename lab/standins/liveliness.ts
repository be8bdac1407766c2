/**
 * The apiserver's provisioning-event containers and the allocation check on them, as
 * upstream keeps them (pure; the stand-in's MachineBook holds the map):
 * - SendEvent (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:88-146):
 *   the first event of a machine makes its container with liveliness Alive (:127-133); every
 *   event is appended and the container keeps its last 100 (TrimEvents(100), :143). It is
 *   reached from BootService/Dhcp (:40-47, the PXE path) and EventService/Send (INFRA_ROLE
 *   only: pkg/service/infra/event/event-service.go:30-51). An event for a machine that has a
 *   container keeps the container's liveliness (the fsm it passes through, pkg/fsm, is not in
 *   the reference: taken as leaving it).
 * - Register (machine.go:881-901): a machine without a container gets one holding an Alive
 *   *event* ("machine registered") but no liveliness, so a machine that registers before any
 *   event is never allocatable: the boot event must come first.
 * - findWaitingMachine (pkg/repository/machine-create.go:326-370): a candidate without a
 *   container is skipped ("cannot find machine provisioning event container"), one whose
 *   liveliness is not Alive too; none left is "no machine available".
 * Nothing at 3f09705a turns a container Dead (pkg/db/metal/machine.go:278 MachineDeadAfter is
 * defined, not used), so a machine with a container stays Alive here as there.
 */

/** One stored event: the enum's full name (protojson), its message, when it came. */
export interface StoredEvent {
  readonly time: string;
  readonly event: string;
  readonly message: string;
}

/** "": the container Register makes has none. */
export type Liveliness = "Alive" | "Dead" | "Unknown" | "";

export interface EventContainer {
  readonly liveliness: Liveliness;
  readonly events: readonly StoredEvent[];
}

/** TrimEvents(100): the newest 100 are kept. */
export const EVENTS_KEPT = 100;

/** SendEvent's bookkeeping: the container after `event` (a new one is Alive). */
export function withEvent(container: EventContainer | undefined, event: StoredEvent): EventContainer {
  const events = [...(container?.events ?? []), event];
  return { liveliness: container?.liveliness ?? "Alive", events: events.slice(Math.max(0, events.length - EVENTS_KEPT)) };
}

/** Register's container: the one there is, else a new one with an Alive event and no liveliness. */
export function registeredContainer(container: EventContainer | undefined, time: string): EventContainer {
  return container ?? { liveliness: "", events: [{ time, event: "MACHINE_PROVISIONING_EVENT_TYPE_ALIVE", message: "machine registered" }] };
}

/** findWaitingMachine's liveliness check for one machine: the reason it is skipped, or undefined when it may be allocated. */
export function notAllocatable(uuid: string, container: EventContainer | undefined): string | undefined {
  if (!container) return `no machine available: machine ${uuid} has no provisioning event container (no event was ever sent for it)`;
  if (container.liveliness !== "Alive")
    return `no machine available: machine ${uuid} is ${container.liveliness || "of no liveliness (its container was made by Register, before any event)"}, not Alive`;
  return undefined;
}
