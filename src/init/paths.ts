/** Where PID 1 finds what the initramfs build put in the image. */
export const MODULES_ROOT = "/lib/modules";
/** File in /lib/modules/<kernel>/ listing the modules PID 1 loads at boot without a device (the repo's initramfs/modules/boot.list). */
export const MODULE_LIST_NAME = "modules.load";
/** modules.alias of exactly the image's modules: PID 1 matches device modaliases against it. */
export const MODULE_ALIAS_NAME = "modules.alias";
/** Pre-softdeps of the image's modules, as module names (src/kernel/kmod/softdep.ts). */
export const MODULE_SOFTDEP_NAME = "modules.softdep";
/** Which firmware files each module of the image names (src/kernel/kmod/firmware.ts). */
export const MODULE_FIRMWARE_NAME = "modules.firmware";
/** The running kernel's own config, when it is built with CONFIG_IKCONFIG_PROC (Debian's is not). */
export const PROC_CONFIG = "/proc/config.gz";
/** The config of the kernel the initramfs was built for, copied in by initramfs/build.ts: PID 1 checks the running kernel against the fragment with it when there is no /proc/config.gz. */
export const imageKernelConfig = (release: string): string => `/boot/config-${release}`;
export const BUSYBOX = "/bin/busybox";
/** The agent binary in the image; /init execs it. */
export const AGENT_PATH = "/bin/metal-hammer";

/**
 * /init. A `bun build --compile` binary reads /proc/self/* before any of its
 * JavaScript runs and aborts without procfs (measured: SIGABRT at start-up), so
 * /proc is mounted here first; `exec` keeps PID 1, and the agent then mounts the
 * rest (src/init/mounts.ts skips what is already mounted).
 */
export function initShim(): string {
  return [
    "#!/bin/busybox sh",
    "# metal-hammer /init: Bun needs /proc before its first line of JavaScript runs.",
    "/bin/busybox mount -t proc -o nosuid,nodev,noexec proc /proc",
    `exec ${AGENT_PATH} "$@"`,
    "",
  ].join("\n");
}
