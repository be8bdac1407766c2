/**
 * Runs a command on this host kept from its disks by construction, not by the agent's
 * own guard: a private mount namespace whose /dev is a fresh tmpfs with only the
 * character devices a process needs (null, zero, full, random, urandom, tty), its own PID
 * namespace (so /proc/1/root is its own root, not the host's), and a capability bounding
 * set without CAP_MKNOD (no new device node), CAP_SYS_ADMIN (no mount of devtmpfs, no
 * umount of the tmpfs), CAP_SYS_RAWIO and CAP_SYS_MODULE. Network capabilities stay: the
 * agent brings up its NICs in the network namespace it was started in.
 *   [...nsExec, ...disklessArgv([bun, agent, ...])]
 * End it with SIGKILL: unshare blocks SIGTERM and SIGINT while it waits (they are meant for
 * the child on a terminal), and --kill-child takes the whole namespace down with it.
 */

/** The character devices the tmpfs /dev gets: name, major, minor. */
const CHAR_DEVICES: readonly (readonly [string, number, number])[] = [
  ["null", 1, 3],
  ["zero", 1, 5],
  ["full", 1, 7],
  ["random", 1, 8],
  ["urandom", 1, 9],
  ["tty", 5, 0],
];

export const DROPPED_CAPS = ["mknod", "sys_admin", "sys_rawio", "sys_module"] as const;

/** The shell that sets up /dev, then execs `argv` with the bounding set cut (argv passed as "$@", never interpolated). */
const SETUP = [
  "set -e",
  "mount -t tmpfs -o mode=0755,nosuid,noexec tmpfs /dev",
  ...CHAR_DEVICES.map(([n, ma, mi]) => `mknod -m 0666 /dev/${n} c ${ma} ${mi}`),
  "ln -s /proc/self/fd /dev/fd",
  "ln -s /proc/self/fd/0 /dev/stdin",
  "ln -s /proc/self/fd/1 /dev/stdout",
  "ln -s /proc/self/fd/2 /dev/stderr",
  "mkdir /dev/shm /dev/net",
  // Not exec: the shell stays PID 1 of the namespace, so the command is not PID 1 (the agent
  // runs as the init supervisor when it is).
  `setpriv --bounding-set ${DROPPED_CAPS.map((c) => `-${c}`).join(",")} -- "$@"`,
].join("\n");

export function disklessArgv(argv: readonly string[]): string[] {
  return ["unshare", "--mount", "--propagation", "private", "--pid", "--fork", "--kill-child=SIGKILL", "--mount-proc", "--", "sh", "-c", SETUP, "diskless", ...argv];
}
