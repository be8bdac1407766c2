/**
 * The lab summary's lines on what the apiserver stand-in knew of the machine when the operator
 * allocated it: its provisioning events and liveliness (lab/standins/liveliness.ts), from the
 * stand-ins' liveliness.json. Upstream allocates only an Alive machine with an event container
 * (metal-stack/metal-apiserver@3f09705a pkg/repository/machine-create.go:326-370), so these lines
 * say whether the chain would get its allocation there too. Pure.
 */
import type { AllocationTry } from "./machines.ts";
import type { EventContainer } from "./liveliness.ts";

interface LivelinessFile {
  readonly events: Record<string, EventContainer>;
  readonly allocationTries: readonly AllocationTry[];
}

const eventText = (e: { event: string; message: string; time: string }) => `${e.event.replace(/^MACHINE_PROVISIONING_EVENT_TYPE_/, "")} at ${e.time} (${e.message})`;

/** The summary lines for `uuid`; one line saying so when the file is missing or names no try. */
export function livelinessLines(json: string | undefined, uuid: string): string[] {
  if (json === undefined) return ["events: none recorded (no liveliness.json: the machine got no event and no allocation was tried)"];
  const f = JSON.parse(json) as LivelinessFile;
  const tries = f.allocationTries.filter((t) => t.uuid === uuid);
  const now = f.events[uuid];
  if (tries.length === 0) return [`events: ${now ? `${now.events.map(eventText).join("; ")}; liveliness ${now.liveliness}` : "none"}; no allocation tried`];
  return tries.map((t) => {
    const seen = `${t.events.length > 0 ? t.events.map(eventText).join("; ") : "no events"}; liveliness ${t.liveliness ?? "none (no event container)"}`;
    return `before the allocation at ${t.at}: events ${seen} -> ${t.refused ? `refused: ${t.refused}` : "allocated"}`;
  });
}
