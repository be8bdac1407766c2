/**
 * A two-ended IPv6 link for the api suite: a veth pair whose host end (in the test's
 * own namespace) carries the stand-ins and whose other end sits in a fresh netns where
 * the agent runs. Unique names (prefix mha + random), addresses with nodad, a hosts
 * file for the netns (ip netns exec bind-mounts /etc/netns/<ns>/hosts), all removed
 * in cleanup(). Nothing else on the machine is touched.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { waitFor } from "./wait.ts";

export interface Link {
  readonly ns: string;
  readonly hostIf: string;
  /** The veth end inside the netns (the machine's NIC). */
  readonly machineIf: string;
  readonly hostAddr: string;
  readonly machineAddr: string;
  /** Host name of the stand-ins inside the netns (via /etc/netns/<ns>/hosts). */
  readonly name: string;
  cleanup(): void;
}

function ip(args: string[]): void {
  const r = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr.toString().trim()}`);
}

export const canRunNetns = (): string | undefined => {
  if (process.getuid?.() !== 0) return "needs root (network namespaces)";
  if (Bun.spawnSync(["ip", "-V"], { stdout: "pipe", stderr: "pipe" }).exitCode !== 0) return "needs iproute2";
  if (Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode !== 0) return "needs openssl";
  return undefined;
};

/** `prefix`: the suite's namespace prefix (names stay unique across suites run side by side). */
export async function createLink(prefix = "mha"): Promise<Link> {
  // 4 hex digits without a leading zero, so the addresses below are already in canonical form.
  const sfx = (0x1000 + Math.floor(Math.random() * 0xefff)).toString(16);
  const ns = `${prefix}-api-${sfx}`;
  const hostIf = `${prefix}-h${sfx}`;
  const nsIf = `${prefix}-m${sfx}`;
  const hostAddr = `fd00:6d68:${sfx}::1`;
  const machineAddr = `fd00:6d68:${sfx}::2`;
  const name = `standins.${prefix}.test`;
  const etc = `/etc/netns/${ns}`;
  const cleanup = () => {
    Bun.spawnSync(["ip", "link", "del", hostIf], { stdout: "ignore", stderr: "ignore" });
    Bun.spawnSync(["ip", "netns", "del", ns], { stdout: "ignore", stderr: "ignore" });
    rmSync(etc, { recursive: true, force: true });
  };
  try {
    ip(["netns", "add", ns]);
    ip(["link", "add", hostIf, "type", "veth", "peer", "name", nsIf, "netns", ns]);
    ip(["addr", "add", `${hostAddr}/64`, "dev", hostIf, "nodad"]);
    ip(["link", "set", hostIf, "up"]);
    ip(["-n", ns, "link", "set", "lo", "up"]);
    ip(["-n", ns, "addr", "add", `${machineAddr}/64`, "dev", nsIf, "nodad"]);
    ip(["-n", ns, "link", "set", nsIf, "up"]);
    mkdirSync(etc, { recursive: true });
    writeFileSync(`${etc}/hosts`, `127.0.0.1 localhost\n::1 localhost\n${hostAddr} ${name}\n`);
    // An empty resolv.conf: nothing in the netns may ask the machine's real DNS servers.
    writeFileSync(`${etc}/resolv.conf`, "");
    // nodad: the addresses are usable at once; wait for carrier on both ends.
    const up = (args: string[]) => /state UP/.test(Bun.spawnSync(["ip", ...args], { stdout: "pipe" }).stdout.toString());
    await waitFor(() => up(["link", "show", hostIf]) && up(["-n", ns, "link", "show", nsIf]), 10_000, `carrier on ${hostIf} and ${ns}/${nsIf}`);
  } catch (e) {
    cleanup();
    throw e;
  }
  return { ns, hostIf, machineIf: nsIf, hostAddr, machineAddr, name, cleanup };
}
