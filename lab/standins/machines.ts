/**
 * The apiserver stand-in's machine state: what each machine registered, its
 * allocation, its provisioning events and liveliness (liveliness.ts), and the Wait streams open
 * for it. The operator's `allocateWaiting` refuses a machine that is not Alive, as upstream's
 * findWaitingMachine skips it; `allocate` stores one as given and sends the allocation to
 * every open Wait of that machine (later Waits get it at once); the stream stays open
 * (upstream machine.go Wait never ends by itself). `breakWaits` cuts the open streams
 * mid-way (no end-of-stream message), as a proxy or a restarting apiserver would.
 * Test-only: with `keepaliveMs` > 0 an open Wait sends an empty message at that
 * interval (upstream sends none).
 */
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MachineAllocationSchema } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { BootServiceWaitResponseSchema } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { IMAGE_PATH } from "./image-cache.ts";
import type { BootServiceRegisterRequest } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { registeredBmcRecord, type BmcRecord } from "./bmc-record.ts";
import { notAllocatable, registeredContainer, withEvent, type EventContainer, type StoredEvent } from "./liveliness.ts";
import type { Refusal } from "./rules.ts";
import { connectMachine, machineConnections, type SwitchTable } from "./switches.ts";

/** A Wait message as the server encodes it: the allocation through MachineAllocation (fields it does not have are not sent). */
export const waitMessage = (allocation: Record<string, unknown>): JsonValue =>
  toJson(
    BootServiceWaitResponseSchema,
    create(BootServiceWaitResponseSchema, { allocation: fromJson(MachineAllocationSchema, allocation as JsonValue, { ignoreUnknownFields: true }) }),
  );

export interface OpenWait {
  readonly uuid: string;
  /** Messages sent on this stream so far (keepalives included). */
  readonly sent: number;
  send(value: unknown): void;
  end(): void;
  cut(): void;
}

const WAIT_OPENED_KEPT = 10_000;

/** One try of the operator to allocate a machine, with what findWaitingMachine saw: its liveliness and events then. */
export interface AllocationTry {
  readonly uuid: string;
  readonly at: string;
  /** Why it was not allocated; undefined: allocated. */
  readonly refused?: string;
  readonly liveliness: string | null;
  readonly events: readonly StoredEvent[];
}

export class MachineBook {
  /** uuid -> the last Register request. */
  readonly registered = new Map<string, Record<string, unknown>>();
  readonly allocations = new Map<string, Record<string, unknown>>();
  /** uuid -> the console password InstallationSucceeded reported. */
  readonly installed = new Map<string, string>();
  /** uuid -> the BMC record as the apiserver stores it from the last Register (bmc-record.ts: replaced wholesale). */
  readonly bmc = new Map<string, BmcRecord>();
  /** uuid -> its provisioning-event container (liveliness.ts: SendEvent's bookkeeping). */
  readonly events = new Map<string, EventContainer>();
  /** Every allocation the operator tried (POST /_standin/allocate, --allocate-after), refused ones too. */
  readonly allocationTries: AllocationTry[] = [];
  /** Called after an event was stored or an allocation tried (main.ts writes liveliness.json). */
  onLiveliness: (() => void) | undefined;
  readonly open = new Set<OpenWait>();
  /** When each Wait stream opened (ms since epoch; the last 10,000): an open Wait never answers, so the request log cannot show when it came. */
  readonly waitOpenedAt: number[] = [];
  keepaliveMs = 0;
  /** The two-switch rule (switch.go ConnectMachineWithSwitches); off only for a lab without LLDP peers (--no-switch-rule). */
  switchRule = true;
  /** BootService/SuperUserPassword's password; undefined: feature_disabled, as the apiserver answers without one (boot-service.go:74-81). */
  superUserPassword: string | undefined;
  /** Size the Register answer names. */
  size = "v1-small-x86";
  /** When set, every machine that registers is allocated this long afterwards (the lab's "operator"). */
  allocateAfterMs: number | undefined;
  /** The lab's allocation carries a filesystem layout for /dev/vda and the served image (main.ts --image). */
  labInstall = false;
  /** That layout has an ESP (LAB_LAYOUT_UEFI, main.ts --esp): the UEFI install. */
  labEsp = false;
  /** Members that replace the lab allocation's (main.ts --allocation FILE): the real OS's layout, networks, hostname. */
  labExtra: Record<string, unknown> = {};

  /**
   * The switches as metal-core registered them (switches.ts). Empty: no switch table, and
   * Register connects nothing and looks no switch up (a stand-in deviation for tests
   * without switches: upstream, an unknown switch fails Register).
   */
  switches: SwitchTable = new Map();
  /** Called after a Register changed the switch table (main.ts writes connections.json). */
  onConnect: ((uuid: string, connections: readonly { switch: string; port: string }[]) => void) | undefined;

  /** Register's switch step (switches.ts connectMachine): the refusal, or undefined with the table updated. */
  connectSwitches(r: BootServiceRegisterRequest): Refusal | undefined {
    if (this.switches.size === 0 || !this.switchRule) return undefined;
    const c = connectMachine(this.switches, r.uuid, r.hardware?.nics ?? []);
    if (!c.ok) return { code: c.code, message: c.message };
    this.switches = c.table;
    this.onConnect?.(r.uuid, c.connections);
    return undefined;
  }

  /** The machine's switch connections ("leaf01 Ethernet0"), switch by switch. */
  connections(uuid: string): { switch: string; port: string }[] {
    return machineConnections(this.switches, uuid);
  }

  /**
   * Records a Register request; schedules the lab's allocation when allocateAfterMs is set.
   * A machine that registers again (after a power loss) keeps its allocation, as upstream:
   * metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:863-877 updates hardware,
   * BIOS, IPMI and partition of the machine it found, never its Allocation; its next Wait
   * then sends that allocation first (machine.go:1331-1339).
   */
  register(uuid: string, request: Record<string, unknown>): void {
    this.registered.set(uuid, request);
    this.bmc.set(uuid, registeredBmcRecord(request));
    // machine.go:881-901: Register makes a container (no liveliness) only when there is none.
    this.events.set(uuid, registeredContainer(this.events.get(uuid), new Date().toISOString()));
    this.onLiveliness?.();
    const after = this.allocateAfterMs;
    if (after === undefined || this.allocations.has(uuid)) return;
    setTimeout(() => this.allocateWaiting(uuid, { ...labAllocation(uuid, this.labInstall, this.labEsp), ...this.labExtra }), after).unref();
  }

  /** SendEvent (liveliness.ts withEvent): the event stored in the machine's container, made Alive when it is the first. */
  sendEvent(uuid: string, event: StoredEvent): void {
    this.events.set(uuid, withEvent(this.events.get(uuid), event));
    this.onLiveliness?.();
  }

  /**
   * The operator's allocation (MachineService/Create upstream): refused, as findWaitingMachine
   * skips it, when the machine has no event container or is not Alive; returns the reason, or
   * undefined when allocated. Each try is recorded with the liveliness and events it saw.
   */
  allocateWaiting(uuid: string, allocation: Record<string, unknown>): string | undefined {
    const container = this.events.get(uuid);
    const refused = notAllocatable(uuid, container);
    this.allocationTries.push({
      uuid,
      at: new Date().toISOString(),
      ...(refused ? { refused } : {}),
      liveliness: container?.liveliness ?? null,
      events: container?.events ?? [],
    });
    if (!refused) this.allocate(uuid, allocation);
    this.onLiveliness?.();
    return refused;
  }

  /** Stores an allocation as the database holds it (tests set one up front; a machine allocated before keeps it) and sends it to the open Waits. */
  allocate(uuid: string, allocation: Record<string, unknown>): void {
    this.allocations.set(uuid, allocation);
    for (const w of [...this.open]) {
      if (w.uuid !== uuid) continue;
      w.send(waitMessage(allocation));
    }
  }

  /** Cuts every open Wait stream; returns how many. */
  /** Records an open Wait stream. */
  opened(wait: OpenWait): void {
    this.open.add(wait);
    this.waitOpenedAt.push(Date.now());
    if (this.waitOpenedAt.length > WAIT_OPENED_KEPT) this.waitOpenedAt.splice(0, this.waitOpenedAt.length - WAIT_OPENED_KEPT);
  }

  breakWaits(): number {
    const n = this.open.size;
    for (const w of [...this.open]) w.cut();
    return n;
  }

  reset(): void {
    this.registered.clear();
    this.waitOpenedAt.length = 0;
    this.allocations.clear();
    this.installed.clear();
    this.events.clear();
    this.bmc.clear();
    this.allocationTries.length = 0;
    this.breakWaits();
    this.keepaliveMs = 0;
    this.allocateAfterMs = undefined;
    this.labInstall = false;
    this.labEsp = false;
    this.labExtra = {};
    this.switchRule = true;
    this.switches = new Map();
  }
}

/**
 * The lab's install layout: one ext4 root over the whole virtio disk (FilesystemLayout
 * protojson, metal-stack-api proto/metalstack/api/v2/filesystem.proto).
 */
export const LAB_LAYOUT = {
  id: "lab-single",
  disks: [{ device: "/dev/vda", partitions: [{ number: 1, label: "root", gptType: "GPT_TYPE_LINUX" }] }],
  filesystems: [{ device: "/dev/vda1", format: "FORMAT_EXT4", path: "/", label: "root", mountOptions: ["noatime"] }],
};

/**
 * The UEFI install layout: a 256 MiB ESP (GPT_TYPE_BOOT, vfat at /boot/efi, as
 * metal-stack's layouts have it) and the ext4 root over the rest.
 */
export const LAB_LAYOUT_UEFI = {
  id: "lab-uefi",
  disks: [
    {
      device: "/dev/vda",
      partitions: [
        { number: 1, label: "efi", size: "256", gptType: "GPT_TYPE_BOOT" },
        { number: 2, label: "root", gptType: "GPT_TYPE_LINUX" },
      ],
    },
  ],
  filesystems: [
    { device: "/dev/vda1", format: "FORMAT_VFAT", path: "/boot/efi", label: "efi" },
    { device: "/dev/vda2", format: "FORMAT_EXT4", path: "/", label: "root", mountOptions: ["noatime"] },
  ],
};

/** The allocation the lab's operator gives every machine that registers; `install`: with LAB_LAYOUT (LAB_LAYOUT_UEFI with `esp`) and the served image. */
export function labAllocation(uuid: string, install = false, esp = false): Record<string, unknown> {
  return {
    uuid,
    hostname: `lab-${uuid.slice(-4)}`,
    project: "lab",
    // With a cache the agent fetches <cache>/<path of this URL>: the stand-in cache serves IMAGE_PATH.
    image: { id: "debian-12.0.20251101", url: install ? `https://images.metal-stack.io/${IMAGE_PATH}` : "https://images.metal-stack.io/metal-os/stable/debian/12/img.tar.lz4" },
    ...(install ? { filesystemLayout: esp ? LAB_LAYOUT_UEFI : LAB_LAYOUT } : {}),
    userdata: "#cloud-config\n# lab-userdata-not-a-secret-anywhere-else\n",
  };
}
