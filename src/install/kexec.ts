/**
 * Boots the installed OS: kexec_file_load(2) of boot-info's kernel, initrd and cmdline
 * (src/platform/sys/kexec-syscall.ts), then the target is unmounted cleanly (the caller's unmount, from
 * the disks stage) and synced, then reboot(LINUX_REBOOT_CMD_KEXEC). The kernel is
 * loaded *before* the unmount: the fds need the files, the jump needs clean
 * filesystems. When the kernel refuses kexec (lockdown: EPERM, no kexec: ENOSYS,
 * signature: EKEYREJECTED, ...), the machine reboots instead (the installed bootloader
 * takes over) and the log says so. metal-hammer's pkg/kernel RunKexec does the same
 * load + reboot, through u-root.
 */
import { AgentError } from "../platform/errors.ts";
import { errnoName } from "../platform/sys/errno.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { kexecArgs, type KexecSys } from "../platform/sys/kexec-syscall.ts";
import { LINUX_REBOOT_CMD_KEXEC, LINUX_REBOOT_CMD_RESTART } from "../platform/sys/reboot-syscall.ts";
import type { BootInfo } from "./boot-info.ts";

/** errnos that mean "this kernel will not kexec" (fall back to a reboot), by kexec_file_load(2). */
export const KEXEC_REFUSED: ReadonlySet<number> = new Set([
  1 /* EPERM */, 38 /* ENOSYS */, 129 /* EKEYREJECTED */, 13 /* EACCES */, 61 /* ENODATA: no signature */, 95 /* EOPNOTSUPP */,
]);

export type BootOutcome = { readonly how: "kexec" } | { readonly how: "reboot"; readonly reason: string };

export interface BootInput {
  readonly root: string;
  readonly bootInfo: BootInfo;
  readonly log: Logger;
  readonly sys: KexecSys;
  /** Unmounts the target root cleanly (the disks stage's unmount). */
  readonly unmountTarget: () => Promise<void>;
  /**
   * Right before reboot(2), after the kernel was loaded (or failed to): the last lines
   * flushed and the watchdog closed (Operations.beforeReboot). Until then the watchdog
   * still guards the agent: a kernel file that cannot be read must not find it closed.
   */
  readonly beforeReboot?: () => Promise<void>;
}

/**
 * Loads the kernel; undefined on success, else why. Kernel and initrd are opened inside
 * the root (links followed as the installed system sees them, never out of it), without
 * blocking, and only as regular files (KexecSys.openRead). Closes its fds.
 */
export function loadKernel(root: string, info: BootInfo, sys: KexecSys): { errno: number; what: string } | { why: string } | undefined {
  const k = sys.openRead(root, info.kernel);
  if ("error" in k) return { why: k.error };
  const kfd = k.fd;
  let ifd: number | undefined;
  try {
    if (info.initrd !== "") {
      const i = sys.openRead(root, info.initrd);
      if ("error" in i) return { why: i.error };
      ifd = i.fd;
    }
    const err = sys.kexecFileLoad(kexecArgs(kfd, ifd, info.cmdline));
    return err === 0 ? undefined : { errno: err, what: "kexec_file_load" };
  } finally {
    sys.close(kfd);
    if (ifd !== undefined) sys.close(ifd);
  }
}

/** Never returns on a real machine (the kernel jumps or reboots); with an injected sys it answers what it did. */
export async function bootInstalled(b: BootInput): Promise<BootOutcome> {
  const failed = loadKernel(b.root, b.bootInfo, b.sys);
  // Any failure to load reboots (the installed bootloader boots the same OS); only the
  // message tells a refusal (policy of this kernel) from a kernel that cannot be loaded.
  const refused = failed !== undefined && "errno" in failed && KEXEC_REFUSED.has(failed.errno);
  await b.unmountTarget();
  b.sys.sync();
  if (failed === undefined) {
    logEvent(
      b.log,
      "install.kexec",
      { kernel: b.bootInfo.kernel, initrd: b.bootInfo.initrd || null, cmdlineBytes: b.bootInfo.cmdline.length },
      `kexec into ${b.bootInfo.kernel} of the installed OS`,
    );
    await lastLineOut(b);
    const err = b.sys.reboot(LINUX_REBOOT_CMD_KEXEC);
    if (err === 0) return { how: "kexec" };
    return await reboot(b, `reboot(LINUX_REBOOT_CMD_KEXEC) failed: ${errnoName(err)}`);
  }
  const why =
    "why" in failed
      ? failed.why
      : `${failed.what}: ${errnoName(failed.errno)}${refused ? " (kexec refused by this kernel: lockdown, no kexec support or an unsigned kernel)" : ""}`;
  return await reboot(b, why);
}

/** The line just logged reaches the console before the kernel takes over (seen cut in the e2e). */
async function lastLineOut(b: BootInput): Promise<void> {
  await b.beforeReboot?.();
  await b.log.flush();
  b.sys.drainConsole();
}

async function reboot(b: BootInput, reason: string): Promise<BootOutcome> {
  logEvent(b.log, "install.reboot", { reason }, `not kexec'ing (${reason}): rebooting into the installed OS through its bootloader instead`, "warn");
  await lastLineOut(b);
  const err = b.sys.reboot(LINUX_REBOOT_CMD_RESTART);
  if (err !== 0) throw new AgentError("kexec", `kexec failed (${reason}) and reboot(2) failed too: ${errnoName(err)}`, { reason, errno: err });
  return { how: "reboot", reason };
}
