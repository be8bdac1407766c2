/**
 * Options shared by the commands that talk to servers (run, token, reach): where the
 * cmdline comes from, the uuid override, and where files go (for the lab and tests);
 * and the composition root: the flow's services, built once from them.
 */
import type { Command } from "commander";
import { normaliseUuid } from "../platform/ids/uuid.ts";
import { collectInventory } from "../machine/inventory/collect.ts";
import { bmcDevicePresent } from "../machine/bmc/device.ts";
import { discoverBmc, writeSuperUser, type BmcDeps } from "../machine/bmc/discover.ts";
import { inBandIpmitool } from "../machine/bmc/ipmitool.ts";
import type { Config } from "../config/config.ts";
import { consoleForManufacturer } from "../config/console.ts";
import { AgentError } from "../errors.ts";
import { RESOLV_CONF } from "../agent/flow/network.ts";
import { systemDiskIo } from "../machine/disk/io.ts";
import { unmountLayout, writeFstab } from "../machine/disk/layout-run.ts";
import { applyAllocationLayout, wipeMachineDisks } from "../machine/disk/stages.ts";
import { readDisks } from "../machine/disk/sysfs.ts";
import { wipeBoundMs } from "../machine/disk/wipe-bound.ts";
import { parseMounts } from "../platform/fs/mount-table.ts";
import { READ_CAPS, readBoundedTextSync } from "../platform/fs/read-bounded.ts";
import type { Services } from "../agent/flow/services.ts";
import { execNextStage } from "../agent/handoff/exec.ts";
import { HttpClient } from "../clients/http/client.ts";
import { DEFAULT_RETRY } from "../clients/http/retry.ts";
import { installOs } from "../install/install.ts";
import { PROC_ROOT } from "../machine/inventory/collect.ts";
import { startLldp } from "../network/lldp/session.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { bringUp, linkFacts } from "../network/net/bringup.ts";
import { selectInterfaces } from "../network/net/select.ts";
import { sysfsHasDevice } from "../network/net/sysfs.ts";
import { NetlinkSocket } from "../network/netlink/socket.ts";
import { Operations } from "../agent/operations/operations.ts";
import { linuxKexec } from "../platform/sys/kexec.ts";
import { versionInfo } from "../version.ts";
import type { Context } from "../platform/io/context.ts";
import { loadConfig } from "./read-cmdline.ts";

export interface AgentOptions {
  cmdline?: string;
  file?: string;
  uuid?: string;
  runDir?: string;
  sysfs?: string;
}

export function addAgentOptions(cmd: Command): Command {
  return cmd
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .option("--uuid <uuid>", "machine uuid (overrides METAL_UUID and DMI)")
    .option("--run-dir <dir>", "where the token file and handoff.json go", "/run/metal")
    .option("--sysfs <dir>", "sysfs root to read the DMI uuid from", "/sys");
}

export async function agentConfig(ctx: Context, opts: AgentOptions): Promise<Config> {
  const config = await loadConfig(ctx.io, opts);
  if (opts.uuid === undefined) return config;
  const uuid = normaliseUuid(opts.uuid);
  if (uuid === undefined) {
    throw new AgentError("usage", `--uuid ${JSON.stringify(opts.uuid)}: expected a machine UUID (8-4-4-4-12 hex digits; the apiserver takes nothing else)`, {});
  }
  return { ...config, uuid };
}

/** The NICs bring-up will select (METAL_NICS or the physical ones), read over rtnetlink. */
function selectNics(config: Config, sysRoot: string): Services["selectNics"] {
  return () => {
    const rq = NetlinkSocket.open();
    try {
      const links = linkFacts(rq.dumpLinks());
      return selectInterfaces(links, config.nics, sysfsHasDevice(sysRoot)).selected.map((l) => ({ name: l.name, ifindex: l.ifindex, mac: l.mac }));
    } finally {
      rq.close();
    }
  };
}

const runDir = (opts: AgentOptions): string => (opts.runDir ?? "/run/metal").replace(/\/+$/, "");

/** The operations services, built before the logger (its sink feeds the log shipper); the status file in --run-dir. */
export function agentOps(ctx: Context, opts: AgentOptions): Operations {
  return new Operations({ secrets: ctx.secrets, statusPath: `${runDir(opts)}/status.json` });
}

/** The type of the filesystem mounted at "/" in a /proc/self/mounts text (the last one wins: overmounts). Pure. */
export function rootFsType(mounts: string): string | undefined {
  return parseMounts(mounts).findLast((m) => m.target === "/")?.fstype;
}

/** "/" of the agent's initramfs: the kernel's rootfs (ramfs or tmpfs). */
const INITRAMFS_ROOT = new Set(["rootfs", "tmpfs", "ramfs"]);

/**
 * The disks stages (src/machine/disk/stages.ts) on this machine's disks. They run only when the
 * agent runs from its initramfs ("/" is rootfs/tmpfs/ramfs): a `run` started on an
 * installed system or a test host must never wipe the disks it runs from. Elsewhere
 * they refuse (wipe_failed) before touching anything.
 */
/** Whether "/" is the agent's initramfs (rootfs, tmpfs or ramfs), and what it is. */
function initramfsRoot(): { readonly ok: boolean; readonly type: string | undefined } {
  let type: string | undefined;
  try {
    type = rootFsType(readBoundedTextSync("/proc/self/mounts", "textFile"));
  } catch {
    type = undefined;
  }
  return { ok: type !== undefined && INITRAMFS_ROOT.has(type), type };
}

function machineDisks(config: Config, sysRoot: string): Services["disks"] {
  const guard = (what: string) => {
    const { ok, type } = initramfsRoot();
    if (!ok) {
      throw new AgentError(
        "wipe_failed",
        `refusing to ${what}: / is ${type ?? "unknown (no /proc/self/mounts)"}, not the agent's initramfs (rootfs, tmpfs or ramfs); the built-in flow touches disks only when metal-hammer boots the machine (by hand: metal-hammer disk wipe|apply --yes)`,
        { rootFs: type ?? null },
      );
    }
  };
  return {
    wipe: async (log) => {
      guard("wipe the disks");
      await wipeMachineDisks({ log, mode: config.wipe, sysRoot });
    },
    wipeBoundMs: async () => wipeBoundMs(await readDisks(sysRoot), config.wipe),
    layout: async (layout, log) => {
      guard("partition the disks");
      const io = systemDiskIo();
      const a = await applyAllocationLayout(layout, { log, version: versionInfo().version, sysRoot, io });
      return {
        root: a.targetRoot,
        rootUuid: a.rootUuid,
        finish: () => writeFstab(a, io),
        unmount: async () => {
          const failed = await unmountLayout(a, io);
          if (failed.length > 0) logEvent(log, "disk.layout.done", { unmountFailed: failed }, `not cleanly unmounted (synced before the reboot): ${failed.join("; ")}`, "warn");
        },
      };
    },
  };
}

/**
 * The BMC in-band (src/machine/bmc) through Debian's ipmitool. Users are written only from the
 * agent's initramfs, like the disks: a `run` on a test host must never change its BMC.
 */
export function machineBmc(sysRoot: string, secrets: { add(v: string): void }, devRoot = "/dev"): Services["bmc"] {
  const deps = (): BmcDeps => ({
    tool: inBandIpmitool(),
    random: (n) => crypto.getRandomValues(new Uint8Array(n)),
    addSecret: (v) => secrets.add(v),
    sleep: (ms) => Bun.sleep(ms),
    jitter: Math.random,
  });
  return {
    discover: async () => {
      const present = await bmcDevicePresent(devRoot);
      const vendor = await Bun.file(`${sysRoot}/class/dmi/id/board_vendor`)
        .text()
        .catch(() => "");
      return await discoverBmc(deps(), present, vendor, initramfsRoot().ok);
    },
    superUser: async (vendor, password) => {
      if (!initramfsRoot().ok) return { ok: false, notes: ["not running from the agent's initramfs: BMC users are not written"] };
      return await writeSuperUser(deps(), vendor, password);
    },
  };
}

/** The composition root: the flow's services, once per command; `over` replaces parts (tests). */
/** One DMI attribute (/sys/class/dmi/id/<name>), undefined when unreadable (a VM or board without it). */
function readDmi(sysRoot: string, name: string): string | undefined {
  try {
    return readBoundedTextSync(`${sysRoot}/class/dmi/id/${name}`, "sysfs").trim();
  } catch {
    return undefined;
  }
}

export function agentServices(ctx: Context, opts: AgentOptions, config: Config, log: Logger, over: Partial<Services> = {}): Services {
  const dir = runDir(opts);
  const sysRoot = opts.sysfs ?? "/sys";
  return {
    log,
    secrets: ctx.secrets,
    http: new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log, retry: { ...DEFAULT_RETRY, totalMs: config.retryWindowMs } }),
    sysRoot,
    tokenFile: `${dir}/token`,
    handoffFile: `${dir}/handoff.json`,
    resolvConf: RESOLV_CONF,
    readFile: (p) => ctx.io.readFile(p, READ_CAPS.sysfs),
    env: ctx.io.env,
    exec: execNextStage,
    selectNics: selectNics(config, sysRoot),
    startLldp: (interfaces, systemName) => startLldp({ interfaces, systemName, log }),
    bringUp,
    inventory: (network) => collectInventory({ sysRoot, procRoot: PROC_ROOT }, network),
    bmc: machineBmc(sysRoot, ctx.secrets),
    now: () => new Date(),
    // No console= on the cmdline: by the manufacturer, as pixie's boot script picks it (src/config/console.ts).
    console: config.console ?? consoleForManufacturer(readDmi(sysRoot, "sys_vendor")),
    ops: over.ops ?? agentOps(ctx, opts),
    disks: machineDisks(config, sysRoot),
    installOs,
    kexecSys: linuxKexec,
    ...over,
  };
}
