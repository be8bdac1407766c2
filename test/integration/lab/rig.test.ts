/**
 * The lab rig (lab/rig/) for real (root, radvd): a namespace with two taps, radvd serving
 * one /64 on each, and a clean-up that leaves nothing behind; a radvd that refuses its
 * config fails the start with radvd's own words; the fleet's shape (a bridge in one rig, a
 * veth into a `router: false` rig as its port) as `ip` shows it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, NetnsRig } from "../../../lab/rig/rig.ts";
import { startRadvd } from "../../../lab/rig/radvd.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const radvd = Bun.which("radvd", { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" });
const ready = prerequisites("test/integration/lab", [process.getuid?.() !== 0 && "root (network namespaces)", !radvd && "radvd (apt-get install radvd)"]);

const namespaces = (): string => Bun.spawnSync(["ip", "netns", "list"], { stdout: "pipe" }).stdout.toString();
const id = (): string => Math.random().toString(16).slice(2, 8);

const rigs: NetnsRig[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.cleanup();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function workDir(): string {
  const d = mkdtempSync(join(tmpdir(), "mhr-"));
  dirs.push(d);
  return d;
}

describe.if(ready)("lab rig", () => {
  test("two taps, each with the router's address, radvd serving both /64s; cleanup removes namespace, taps and radvd", async () => {
    const sfx = id();
    const rig = NetnsRig.create(`mhr-${sfx}`, workDir());
    rigs.push(rig);
    const taps = [`mhr${sfx}t0`, `mhr${sfx}t1`];
    rig.addLoopback("fd00:5e:0:ffff::1");
    taps.forEach((t, i) => rig.addTap(t, `fd00:5e:0:${i + 1}::1`));
    const pid = await rig.startRadvd(taps.map((ifname, i) => ({ ifname, prefix: `fd00:5e:0:${i + 1}::/64`, rdnss: ["fd00:5e:0:ffff::53"] })));

    const addrs = JSON.parse(rig.ip("-6", "-j", "addr", "show")) as { ifname: string; addr_info: { local: string; prefixlen: number }[] }[];
    const global = (name: string) =>
      addrs
        .find((a) => a.ifname === name)
        ?.addr_info.filter((i) => !i.local.startsWith("fe80"))
        .map((i) => `${i.local}/${i.prefixlen}`);
    expect(global(taps[0] as string)).toEqual(["fd00:5e:0:1::1/64"]);
    expect(global(taps[1] as string)).toEqual(["fd00:5e:0:2::1/64"]);
    expect(global("lo")).toContain("fd00:5e:0:ffff::1/128");
    expect(
      Bun.spawnSync(rig.exec(["sysctl", "-n", "net.ipv6.conf.all.forwarding"]), { stdout: "pipe" })
        .stdout.toString()
        .trim(),
    ).toBe("1");
    expect(alive(pid)).toBe(true);
    expect(readFileSync(join(rig.dir, "radvd.pid"), "utf8").trim()).not.toBe("");
    expect(readFileSync(join(rig.dir, "radvd.conf"), "utf8")).toContain(`interface ${taps[1]} {`);

    await rig.cleanup();
    expect(alive(pid)).toBe(false);
    expect(namespaces()).not.toContain(rig.ns);
    // A second cleanup does nothing (and does not throw).
    await rig.cleanup();
  });

  test("a radvd that refuses its config fails the start, with radvd's words and its config named", async () => {
    const sfx = id();
    const dir = workDir();
    const rig = NetnsRig.create(`mhr-${sfx}`, dir);
    rigs.push(rig);
    const conf = join(dir, "bad.conf");
    await Bun.write(conf, "interface {\n");
    const err = await startRadvd({ exec: (argv) => rig.exec(argv), conf, pidFile: join(dir, "bad.pid"), log: join(dir, "bad.log"), timeoutMs: 5000 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`radvd (${conf}) exited`);
  });

  test("a bridge with an address, a veth from it into a router: false rig with the MAC asked for; cleanup removes both", async () => {
    const sfx = id();
    const leaf = NetnsRig.create(`mhr-${sfx}-l`, workDir());
    rigs.push(leaf);
    const machine = NetnsRig.create(`mhr-${sfx}-m`, workDir(), { router: false });
    rigs.push(machine);
    leaf.addBridge("br0");
    leaf.addAddr("br0", "fd00:5e:1::1/64");
    leaf.addVeth("p0", machine, "eth0", { master: "br0", peerMac: "02:f1:00:00:00:01" });

    const links = (rig: NetnsRig) => JSON.parse(rig.ip("-j", "link", "show")) as { ifname: string; master?: string; address?: string; flags: string[] }[];
    const port = links(leaf).find((l) => l.ifname === "p0");
    expect(port?.master).toBe("br0");
    expect(port?.flags).toContain("UP");
    expect(links(leaf).find((l) => l.ifname === "br0")?.flags).toContain("UP");
    const nic = links(machine).find((l) => l.ifname === "eth0");
    expect(nic?.address).toBe("02:f1:00:00:00:01");
    expect(nic?.flags).not.toContain("UP");
    expect(leaf.ip("-6", "addr", "show", "dev", "br0")).toContain("fd00:5e:1::1/64");
    const forwarding = (rig: NetnsRig) =>
      Bun.spawnSync(rig.exec(["sysctl", "-n", "net.ipv6.conf.all.forwarding"]), { stdout: "pipe" })
        .stdout.toString()
        .trim();
    expect(forwarding(leaf)).toBe("1");
    expect(forwarding(machine)).toBe("0");

    await machine.cleanup();
    await leaf.cleanup();
    expect(namespaces()).not.toContain(machine.ns);
    expect(namespaces()).not.toContain(leaf.ns);
  });

  test("a namespace name outside the labs' prefixes is refused before anything is created", () => {
    expect(() => NetnsRig.create("default", workDir())).toThrow(/namespace "default": expected mh<x>-<suffix>/);
    expect(namespaces()).not.toMatch(/^default\b/m);
  });
});
