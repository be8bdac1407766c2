/** Where PID 1 finds what the initramfs build put in the image. */
export const MODULES_ROOT = "/lib/modules";
/** File in /lib/modules/<kernel>/ listing the modules PID 1 loads (the repo's initramfs/modules/<kernel>.list). */
export const MODULE_LIST_NAME = "modules.load";
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
