/**
 * The apiserver stand-in's machine state: what each machine registered, its
 * allocation, and the Wait streams open for it. `allocate` sends the allocation to
 * every open Wait of that machine (later Waits get it at once); the stream stays open
 * (upstream machine.go Wait never ends by itself). `breakWaits` cuts the open streams
 * mid-way (no end-of-stream message), as a proxy or a restarting apiserver would.
 * Test-only: with `keepaliveMs` > 0 an open Wait sends an empty message at that
 * interval (upstream sends none).
 */
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MachineAllocationSchema } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { BootServiceWaitResponseSchema } from "../../../src/gen/metalstack/infra/v2/boot_pb.ts";

/** A Wait message as the server encodes it: the allocation through MachineAllocation (fields it does not have are not sent). */
export const waitMessage = (allocation: Record<string, unknown>): JsonValue =>
  toJson(BootServiceWaitResponseSchema, create(BootServiceWaitResponseSchema, { allocation: fromJson(MachineAllocationSchema, allocation as JsonValue, { ignoreUnknownFields: true }) }));

export interface OpenWait {
  readonly uuid: string;
  /** Messages sent on this stream so far (keepalives included). */
  readonly sent: number;
  send(value: unknown): void;
  end(): void;
  cut(): void;
}

export class MachineBook {
  /** uuid -> the last Register request. */
  readonly registered = new Map<string, Record<string, unknown>>();
  readonly allocations = new Map<string, Record<string, unknown>>();
  /** uuid -> the console password InstallationSucceeded reported. */
  readonly installed = new Map<string, string>();
  readonly open = new Set<OpenWait>();
  keepaliveMs = 0;
  /** The two-switch rule (switch.go ConnectMachineWithSwitches); off only for a lab without LLDP peers (--no-switch-rule). */
  switchRule = true;
  /** Size the Register answer names. */
  size = "v1-small-x86";
  /** When set, every machine that registers is allocated this long afterwards (the lab's "operator"). */
  allocateAfterMs: number | undefined;

  /** Records a Register request; schedules the lab's allocation when allocateAfterMs is set. */
  register(uuid: string, request: Record<string, unknown>): void {
    this.registered.set(uuid, request);
    const after = this.allocateAfterMs;
    if (after === undefined || this.allocations.has(uuid)) return;
    setTimeout(() => this.allocate(uuid, labAllocation(uuid)), after).unref();
  }

  allocate(uuid: string, allocation: Record<string, unknown>): void {
    this.allocations.set(uuid, allocation);
    for (const w of [...this.open]) {
      if (w.uuid !== uuid) continue;
      w.send(waitMessage(allocation));
    }
  }

  /** Cuts every open Wait stream; returns how many. */
  breakWaits(): number {
    const n = this.open.size;
    for (const w of [...this.open]) w.cut();
    return n;
  }

  reset(): void {
    this.registered.clear();
    this.allocations.clear();
    this.installed.clear();
    this.breakWaits();
    this.keepaliveMs = 0;
    this.allocateAfterMs = undefined;
    this.switchRule = true;
  }
}

/** The allocation the lab's operator gives every machine that registers. */
export function labAllocation(uuid: string): Record<string, unknown> {
  return {
    uuid,
    hostname: `lab-${uuid.slice(-4)}`,
    project: "lab",
    image: { id: "debian-12.0.20251101", url: "https://images.metal-stack.io/metal-os/stable/debian/12/img.tar.lz4" },
    userdata: "#cloud-config\n# lab-userdata-not-a-secret-anywhere-else\n",
  };
}
