/**
 * The flow test's services, one fake per stage slice: each builder returns exactly what
 * its stages declare they use (`NetworkServices`, `RegisterServices`, ...) beyond the
 * shared part (the logger, its secrets, the operations, the HTTP client, the run's files),
 * so a stage's test fakes only its own slice and `flowServices` is their sum: a field of
 * `Services` that no stage declares does not compile here (`satisfies Services`).
 */
import { join } from "node:path";
import type { FilesystemLayout } from "../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import type { NicSelector } from "../../src/config/params.ts";
import type { StageName } from "../../src/config/stages.ts";
import type { NtpServer } from "../../src/config/ntp-servers.ts";
import type { Services } from "../../src/agent/services.ts";
import type { NetworkServices } from "../../src/agent/network-stage.ts";
import type { LldpServices } from "../../src/agent/lldp-stage.ts";
import type { RegisterServices } from "../../src/agent/register-stage.ts";
import type { BmcServices } from "../../src/agent/bmc-stage.ts";
import type { LayoutServices } from "../../src/agent/layout-stage.ts";
import type { InstallServices } from "../../src/agent/install-stage.ts";
import type { RebootServices } from "../../src/agent/reboot-stage.ts";
import { HttpClient } from "../../src/clients/http/http-client.ts";
import type { InstallInput, InstallOutput } from "../../src/install/install.ts";
import { toInventory } from "../../src/machine/inventory/map.ts";
import type { LldpNeighbour, LldpSession } from "../../src/network/lldp/neighbour.ts";
import type { NetworkSummary } from "../../src/network/net/summary.ts";
import { createLogger, type Logger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import type { SntpEnv } from "../../src/ops/clock/sntp-client.ts";
import type { ClockDeps, ClockState } from "../../src/ops/clock/sync.ts";
import { Operations } from "../../src/ops/operations/operations.ts";
import type { KexecSys } from "../../src/platform/sys/kexec-syscall.ts";
import { LINUX_REBOOT_CMD_KEXEC, LINUX_REBOOT_CMD_RESTART } from "../../src/platform/sys/reboot-syscall.ts";
import { standinAnswer } from "../integration/clock/sntp-standin.ts";
import { lldpNeighbour } from "../helpers/lldp-neighbour.ts";
import { ONE_NIC_FACTS } from "../helpers/one-nic-facts.ts";

/** The console password the fake installer reports, the BMC's metal user's password (both must never reach a line). */
export const PASSWORD = "console-pw-0f3a9c1e77b2";
export const BMC_PASSWORD = "Bmc4pw7Xq2";
export const BOOT_INFO = {
  kernel: "boot/vmlinuz",
  initrd: "boot/initrd.img",
  cmdline: "console=ttyS0 root=UUID=0a1b2c3d-0000-4000-8000-00000000f00d",
  bootloaderId: "metal-debian",
};
/** What the fake disks say their wipe may take (an overwrite of a large disk: over the 2 h layout hold). */
export const WIPE_BOUND_MS = 9 * 3600_000;
export const NET: NetworkSummary = {
  interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"], state: "ready" }],
  dns: { servers: [], search: [] },
  timingsMs: {},
};
const neigh = (systemName: string, portId: string): LldpNeighbour => lldpNeighbour({ systemName, portId, chassisId: portId });

/**
 * Operations that also remember every stage it was told about, with SNTP answered in
 * memory (no datagram leaves the test, the host's clock is never set): the first
 * server answers the right time.
 */
export class RecordingOps extends Operations {
  readonly stages: StageName[] = [];
  readonly asked: string[] = [];
  /** The watchdog hold asked for by each stage (the stage that was current when hold() was called). */
  readonly holds: { stage: string | undefined; ms: number }[] = [];
  /** Where beforeReboot (logs flushed, watchdog closed) is recorded, among the system calls. */
  sysLog: string[] | undefined;
  override async beforeReboot(why: string, log: Logger, flushMs?: number): Promise<void> {
    this.sysLog?.push(`before-reboot ${why}`);
    await super.beforeReboot(why, log, flushMs);
  }
  override stage(name: StageName, log?: Logger, hangAt?: StageName): void | Promise<void> {
    this.stages.push(name);
    return super.stage(name, log, hangAt);
  }
  override async hold<T>(p: Promise<T>, boundMs: number): Promise<T> {
    this.holds.push({ stage: this.stages.at(-1), ms: boundMs });
    return await super.hold(p, boundMs);
  }
  override syncClock(servers: readonly NtpServer[], log: Logger, deps: Partial<ClockDeps> = {}): Promise<ClockState> {
    const sntp: SntpEnv = {
      now: Date.now,
      random: () => 0.5,
      sleep: async () => {},
      exchange: async (server, request) => {
        this.asked.push(server.host);
        const sentMs = Date.now();
        const a = server === servers[0] ? standinAnswer(request(sentMs), "correct", sentMs) : undefined;
        return a ? { kind: "answer", bytes: a, sentMs, receivedMs: Date.now() } : { kind: "failed", message: "silent" };
      },
    };
    return super.syncClock(servers, log, { ...deps, sntp, setClock: () => 1, rtcPresent: () => false });
  }
}

/** What the fakes were given, in order. */
export interface Seen {
  bringUp: number;
  readonly inventoryNet: (NetworkSummary | undefined)[];
  readonly lldpName: string[];
  readonly sys: string[];
  readonly layouts: FilesystemLayout[];
  readonly install: InstallInput[];
  readonly superUser: string[];
  readonly nicSelectors: (readonly NicSelector[])[];
  readonly wipeModes: string[];
}

/** Nothing seen yet. */
export const newSeen = (): Seen => ({ bringUp: 0, inventoryNet: [], lldpName: [], sys: [], layouts: [], install: [], superUser: [], nicSelectors: [], wipeModes: [] });

/** What every stage may share: the logger and its secrets, the operations, the HTTP client, the run's files. */
export type SharedServices = Pick<Services, "log" | "secrets" | "ops" | "http" | "now" | "sysRoot" | "tokenFile" | "handoffFile" | "resolvConf" | "readFile" | "env" | "exec">;
type Own<T> = Omit<T, keyof SharedServices>;

export function sharedFakes(run: string, caFile: string, sysRoot: string) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const secrets = new SecretSet();
  const ops = new RecordingOps({ secrets, statusPath: join(run, "status.json") });
  const log = createLogger({ level: "debug", format: "json", write: (l) => void (raw.push(l), lines.push(JSON.parse(l))), secrets });
  const shared: SharedServices = {
    log,
    // The logger's set: what a stage registers is scrubbed from every later line, as in the agent.
    secrets,
    ops,
    http: new HttpClient({ caBundle: caFile, allowHttp: false, log }),
    now: () => new Date("2026-01-01T00:00:00Z"),
    sysRoot,
    tokenFile: join(run, "token"),
    handoffFile: join(run, "handoff.json"),
    resolvConf: join(run, "resolv.conf"),
    readFile: async (p) => new Uint8Array(await Bun.file(p).arrayBuffer()),
    env: {},
    exec: () => {
      throw new Error("no exec in this test");
    },
  };
  return { shared, ops, lines, raw };
}

/** The network and lldp stages' own: a bring-up that reports eth0 ready, LLDP that sees two leaves. */
export function networkFakes(seen: Seen): Own<NetworkServices & LldpServices> {
  const lldp: LldpSession = {
    neighbours: () => new Map(),
    waitForSwitches: async () => new Map([["eth0", [neigh("leaf01", "0c:00:00:00:00:01"), neigh("leaf02", "0c:00:00:00:00:02")]]]),
    close: async () => {},
  };
  return {
    selectNics: (selectors) => (seen.nicSelectors.push(selectors), [{ name: "eth0", ifindex: 2, mac: "52:54:00:12:34:56" }]),
    startLldp: (_i, name) => (seen.lldpName.push(name), lldp),
    uplinks: { follow: () => [] },
    bringUp: async () => (seen.bringUp++, { summary: NET, linkUpAt: 0, readyAt: 0, ready: ["eth0"], startup: { entered: 0, subscribed: 0, selected: 0, sysctls: 0 } }),
  };
}

/** The register stage's own (and its BMC steps'): the hardware from facts, a BMC with a metal user, no carried installer. */
export function registerFakes(seen: Seen, secrets: SecretSet): Own<RegisterServices & BmcServices> {
  return {
    inventory: async (net) => (seen.inventoryNet.push(net), toInventory(ONE_NIC_FACTS, net)),
    bmc: {
      discover: async () => (
        secrets.add(BMC_PASSWORD),
        {
          present: true,
          lan: { ip: "192.0.2.10", mac: "52:54:00:ab:cd:ef", notes: [] },
          firmwareRevision: "1.02",
          fru: { productSerial: "PRD-SN-1" },
          vendor: "Supermicro",
          user: { name: "metal", id: 10, password: BMC_PASSWORD },
          notes: [],
        }
      ),
      superUser: async (vendor, password) => (seen.superUser.push(`${vendor.superUser.name}:${password}`), { ok: true, notes: [] }),
    },
    carriedInstaller: { present: false, why: "the flow test carries none" },
  };
}

/** The wipe's and the layout stage's own: disks that record the wipe mode and mount a target under the run directory. */
export function diskFakes(run: string, seen: Seen): Own<LayoutServices> {
  return {
    disks: {
      wipe: async (mode) => void (seen.sys.push("wipe"), seen.wipeModes.push(`wipe ${mode}`)),
      wipeBoundMs: async (mode) => (seen.wipeModes.push(`bound ${mode}`), WIPE_BOUND_MS),
      layout: async (l) => (
        seen.layouts.push(l),
        {
          root: join(run, "target"),
          rootUuid: "0a1b2c3d-0000-4000-8000-00000000f00d",
          finish: async () => void seen.sys.push("fstab"),
          unmount: async () => void seen.sys.push("unmount"),
        }
      ),
    },
  };
}

/** The install stage's own (the carried installer is register's): an image that installs at once and reports the console password. */
export function installFakes(seen: Seen): Omit<Own<InstallServices>, "carriedInstaller"> {
  return {
    manufacturer: () => "QEMU",
    installOs: async (i) => {
      seen.install.push(i);
      i.secrets.add(PASSWORD);
      return {
        image: { url: i.imageUrl.href, bytes: 1, checksum: { algo: "sha256", hex: "00" }, passes: 1, resumes: 0, restarts: 0, ms: 1 },
        installer: { binary: "/install.sh", choice: { kind: "image", binary: "/install.sh", reason: "the image carries /install.sh" }, ms: 1, lines: 0, bootInfo: BOOT_INFO },
        bootInfo: BOOT_INFO,
        report: { uuid: i.machineId, consolePassword: PASSWORD },
      } satisfies InstallOutput;
    },
  };
}

/** The kexec's and the planned reboot's own: system calls that record what they were given. */
export function kexecFakes(seen: Seen): Own<RebootServices> {
  const kexecSys: KexecSys = {
    openRead: (root, p) => (seen.sys.push(`open ${join(root, p)}`), { fd: 7 }),
    close: () => {},
    kexecFileLoad: (a) => (seen.sys.push(`kexec_file_load ${new TextDecoder().decode(a.cmdline).replace(/\0$/, "")}`), 0),
    reboot: (cmd) => (seen.sys.push(cmd === LINUX_REBOOT_CMD_KEXEC ? "reboot KEXEC" : cmd === LINUX_REBOOT_CMD_RESTART ? "reboot RESTART" : `reboot ${cmd}`), 0),
    sync: () => void seen.sys.push("sync"),
    drainConsole: () => void seen.sys.push("drain"),
  };
  return { kexecSys };
}

/** The whole flow's services: the shared part and every stage's own slice, then the test's overrides. */
export function flowServices(run: string, caFile: string, sysRoot: string, over: Partial<Services> = {}) {
  const seen = newSeen();
  const { shared, ops, lines, raw } = sharedFakes(run, caFile, sysRoot);
  ops.sysLog = seen.sys;
  const s = {
    ...shared,
    ...networkFakes(seen),
    ...registerFakes(seen, shared.secrets),
    ...diskFakes(run, seen),
    ...installFakes(seen),
    ...kexecFakes(seen),
    ...over,
  } satisfies Services;
  return { s, lines, raw, seen, ops };
}
