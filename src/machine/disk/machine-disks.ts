/**
 * The disks stages of the built-in flow on this machine's disks (disk-stages.ts), guarded:
 * they run only from the agent's initramfs (guard.ts). The wipe before Waiting, its
 * bound (wipe-bound.ts, the watchdog is held that long), and the allocation's layout,
 * mounted, with what the installed system needs from it afterwards (its fstab) and a
 * clean unmount before kexec.
 */
import type { FilesystemLayout } from "../../gen/metalstack/api/v2/filesystem_pb.ts";
import { readRootFs, type RootFs } from "../../platform/fs/initramfs-root.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { refuseOutsideInitramfs } from "./guard.ts";
import { systemDiskIo } from "./io.ts";
import { unmountLayout, writeFstab } from "./layout-run.ts";
import { applyAllocationLayout, wipeMachineDisks } from "./disk-stages.ts";
import { readDisks } from "./disk-sysfs.ts";
import { DEFAULT_TOOL_TIMEOUT_MS, wipeBoundMs } from "./wipe-bound.ts";
import { probeDrive } from "./drive-probe.ts";
import type { WipeMode } from "./wipe-plan.ts";
import { WipeFailedError, type WipeReport } from "./wipe-run.ts";

/** The layout built and mounted: the target root and its root filesystem's UUID. */
export interface MountedTarget {
  readonly root: string;
  /** The filesystem UUID of the root filesystem (machine-details.yaml root_uuid). */
  readonly rootUuid: string;
  /** After the installer ran: what the installed system needs from the layout (its /etc/fstab, as metal-hammer writes it). */
  readonly finish: () => Promise<void>;
  /** Unmounts the target cleanly (before kexec). */
  readonly unmount: () => Promise<void>;
}

/** Wipe every disk before Waiting; build and mount the layout after the allocation. */
export interface DiskStages {
  /** `mode`: METAL_WIPE (Config.wipe). `record` gets the report, also when the wipe failed (then before the error is thrown). */
  readonly wipe: (mode: WipeMode, log: Logger, record?: (report: WipeReport) => void) => Promise<void>;
  /** The longest the wipe in `mode` may take by its own bounds (wipe-bound.ts): the watchdog is held that long. */
  readonly wipeBoundMs: (mode: WipeMode) => Promise<number>;
  /** The allocation's FilesystemLayout, the generated message as decoded (the planner takes it as it is). */
  readonly layout: (layout: FilesystemLayout, log: Logger) => Promise<MountedTarget>;
}

export interface MachineDisksOptions {
  /** The sysfs root the disks are read from. */
  readonly sysRoot: string;
  /** The agent's version (written into the layout's fstab comment). */
  readonly version: string;
  /** What "/" is, asked before each stage (default: read from /proc/self/mounts). */
  readonly rootFs?: () => RootFs;
}

export function machineDisks(o: MachineDisksOptions): DiskStages {
  const guard = (what: string) => refuseOutsideInitramfs(what, (o.rootFs ?? readRootFs)());
  return {
    wipe: async (mode, log, record) => {
      guard("wipe the disks");
      try {
        record?.(await wipeMachineDisks({ log, mode, sysRoot: o.sysRoot }));
      } catch (e) {
        if (e instanceof WipeFailedError) record?.(e.report);
        throw e;
      }
    },
    wipeBoundMs: async (mode) => {
      // Ask each drive what it offers (read-only, quick), so the hold follows its own methods; one that does not answer is held for the worst case.
      const disks = await readDisks(o.sysRoot);
      const io = systemDiskIo();
      const probed = await Promise.all(disks.map(async (d) => [d.name, await probeDrive(d, io, DEFAULT_TOOL_TIMEOUT_MS)] as const));
      return wipeBoundMs(disks, mode, { drives: new Map(probed.filter(([, p]) => p.notes.length === 0).map(([name, p]) => [name, p.caps])) });
    },
    layout: async (layout, log) => {
      guard("partition the disks");
      const io = systemDiskIo();
      const a = await applyAllocationLayout(layout, { log, version: o.version, sysRoot: o.sysRoot, io });
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
