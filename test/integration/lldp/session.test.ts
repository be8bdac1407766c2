/**
 * The LLDP session against Debian's real lldpd in network namespaces: the switches it
 * sees, the bounded wait, links that come up after the start, malformed and hostile
 * frames, our own frames as lldpd sees them, expiry, and the `lldp` command.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { nsx } from "../../helpers/netns.ts";
import { CHASSIS, END, PORT, tlv, TTL } from "../../network/lldp/fixtures.ts";
import { SKIP, withSwitches, type Switch } from "./switches.ts";

const UUID = "00000000-6d68-6c00-0000-0000000000aa";
const BINARY = join(import.meta.dir, "../../../dist/metal-hammer");
const MAIN = join(import.meta.dir, "../../../src/main.ts");

const macBytes = (mac: string) => mac.split(":").map((h) => parseInt(h, 16));
/** An Ethernet header from the switch to the LLDP group address. */
const eth = (sw: Switch) => [0x01, 0x80, 0xc2, 0, 0, 0x0e, ...macBytes(sw.mac), 0x88, 0xcc];
const frame = (sw: Switch, ...tlvs: number[][]) => Uint8Array.from([...eth(sw), ...tlvs.flat()]);

describe.skipIf(SKIP !== undefined)("LLDP session with real lldpd peers", () => {
  test("two switches: the session sees both, each with its chassis id, port id, port description and system name", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      await s.startLldpd(b, "leaf02");
      const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 20_000 });
      const r = await d.done;
      expect(r.code).toBe(0);
      const n = r.result?.neighbours ?? {};
      expect(n[a.link.agentIf]).toEqual([
        {
          interface: a.link.agentIf,
          chassisId: a.mac,
          chassisIdSubtype: 4,
          portId: a.mac,
          portIdSubtype: 3,
          portDescription: a.link.routerIf,
          systemName: "leaf01",
          ttlSeconds: 4,
          managementAddresses: expect.any(Array),
        },
      ]);
      expect(n[b.link.agentIf]?.map((x) => [x.chassisId, x.portId, x.portDescription, x.systemName])).toEqual([[b.mac, b.mac, b.link.routerIf, "leaf02"]]);
      expect(d.logs.find((l) => l.event === "lldp.wait.done")).toMatchObject({ complete: true, switches: ["leaf01", "leaf02"], wanted: 2 });
      expect(r.result?.ms ?? Infinity).toBeLessThan(20_000);
      // The firmware-agent step ran on each NIC over SIOCETHTOOL: a veth has no such flag.
      expect(d.logs.filter((l) => l.event === "lldp.fw_agent").map((l) => [l.ifname, l.outcome])).toEqual([
        [a.link.agentIf, "no_flag"],
        [b.link.agentIf, "no_flag"],
      ]);
    });
  }, 40_000);

  test("one switch only: waitForSwitches resolves at its timeout with the one switch it saw", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 2000 });
      const r = await d.done;
      expect(r.code).toBe(0);
      expect(Object.keys(r.result?.neighbours ?? {})).toEqual([a.link.agentIf]);
      const done = d.logs.find((l) => l.event === "lldp.wait.done");
      expect(done).toMatchObject({ complete: false, switches: ["leaf01"], wanted: 2 });
      expect(done?.ms as number).toBeGreaterThanOrEqual(2000);
      expect(done?.ms as number).toBeLessThan(4000);
      expect(d.logs.find((l) => l.event === "lldp.wait")).toMatchObject({ switches: 2, timeoutMs: 2000 });
    });
  }, 30_000);

  test("started before the links are up: the latched ENETDOWN is cleared, and both directions work once the links come up", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch({ up: false }), s.addSwitch({ up: false })] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      await s.startLldpd(b, "leaf02");
      const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 20_000, holdMs: 30_000 });
      const start = await d.waitLog("lldp.start", (l) => l.event === "lldp.start", 10_000);
      expect(start.interfaces).toEqual([
        { ifname: a.link.agentIf, listening: true, latched: "ENETDOWN" },
        { ifname: b.link.agentIf, listening: true, latched: "ENETDOWN" },
      ]);
      // Down links: sending fails (ENETDOWN) and is retried; nothing is heard.
      await d.waitLog("a failed send", (l) => l.event === "lldp.announce" && l.errno === "ENETDOWN", 5000);
      nsx(s.agentNs, "ip", "link", "set", a.link.agentIf, "up");
      nsx(s.agentNs, "ip", "link", "set", b.link.agentIf, "up");
      await d.waitLog("both switches", (l) => l.event === "lldp.wait.done", 20_000);
      expect(d.logs.find((l) => l.event === "lldp.wait.done")).toMatchObject({ complete: true, switches: ["leaf01", "leaf02"] });
      await d.waitLog("sending after link-up", (l) => l.event === "lldp.announce" && l.afterErrno === "ENETDOWN", 5000);
      for (const sw of [a, b]) {
        await waitForLldpd(s, sw, 10_000);
        expect(s.lldpdNeighbours(sw)[0]?.systemName).toBe(UUID);
      }
      d.release();
      expect((await d.done).code).toBe(0);
    });
  }, 50_000);

  test("malformed LLDP frames from the peer are skipped with a log line naming what was wrong; the session goes on", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 1, timeoutMs: 30_000 });
      await d.waitLog("lldp.start", (l) => l.event === "lldp.start", 10_000);
      const overrun = frame(a, CHASSIS, PORT, TTL, tlv(5, "leaf01", 300));
      const noChassis = frame(a, PORT, CHASSIS, TTL, END);
      const shortMac = frame(a, tlv(1, [4, 1, 2, 3]), PORT, TTL, END);
      let malformed: Record<string, unknown> | undefined;
      await waitForCondition(
        async () => {
          s.inject(a, overrun, noChassis, shortMac);
          malformed = d.logs.find((l) => l.event === "lldp.frame.malformed");
          return malformed !== undefined;
        },
        10_000,
        "the malformed-frame log line",
      );
      expect(malformed).toMatchObject({ level: 40, ifname: a.link.agentIf, src: a.mac, reason: "truncated_tlv", offset: 36 });
      expect(malformed?.msg).toContain("System Name TLV at offset 36 claims 300 bytes");
      // Still alive and listening: a real switch is seen afterwards.
      await s.startLldpd(a, "leaf01");
      const r = await d.done;
      expect(r.code).toBe(0);
      expect(r.result?.neighbours[a.link.agentIf]?.[0]?.systemName).toBe("leaf01");
      // Never logged as a neighbour, and logged at most once per 10 s however many came.
      expect(d.logs.filter((l) => l.event === "lldp.neighbour").map((l) => l.switch)).toEqual(["leaf01"]);
      expect(d.logs.filter((l) => l.event === "lldp.frame.malformed")).toHaveLength(1);
    });
  }, 45_000);

  test("a flooding peer: beyond 100 frames a second on one NIC, frames are dropped unread and counted, the neighbour is logged once", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      // The wait ends at the flood's first frame; the session goes on listening until released.
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 1, timeoutMs: 20_000, holdMs: 30_000 });
      await d.waitLog("lldp.start", (l) => l.event === "lldp.start", 10_000);
      const f = frame(a, CHASSIS, PORT, TTL, tlv(5, "leaf01"), END);
      s.inject(a, ...Array.from({ length: 300 }, () => f));
      // Each second's count is reported with the first frame of a later second. The burst may
      // straddle a second boundary: at most 100 of its 300 frames are taken in each of the (at
      // most two) seconds it spans, so the reported counts add up to at least 100.
      const droppedLines = () => d.logs.filter((l) => l.event === "lldp.frame.malformed" && typeof l.dropped === "number");
      const total = () => droppedLines().reduce((n, l) => n + (l.dropped as number), 0);
      await waitForCondition(
        () => {
          s.inject(a, f);
          return total() >= 100;
        },
        6000,
        "dropped-frames log lines counting at least 100 frames",
      );
      for (const l of droppedLines()) expect(l).toMatchObject({ level: 40, ifname: a.link.agentIf });
      expect(total()).toBeGreaterThanOrEqual(100);
      expect(d.logs.filter((l) => l.event === "lldp.neighbour")).toHaveLength(1);
      d.release();
      const r = await d.done;
      expect(r.code).toBe(0);
    });
  }, 40_000);

  test("a peer announcing a new switch in every frame (TTL 65535): the NIC keeps 4 neighbours, the real switch returns, the log stays a few lines", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      await s.startLldpd(a, "leaf01");
      // Five switches are never reached: the session runs to its bound and reports what it kept.
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 5, timeoutMs: 16_000 });
      await d.waitLog("leaf01", (l) => l.event === "lldp.neighbour" && l.switch === "leaf01", 10_000);
      const fake = (i: number) => frame(a, tlv(1, [7, ...new TextEncoder().encode(`flood-${i}`)]), PORT, tlv(3, [0xff, 0xff]), tlv(5, `flood-${i}`), END);
      // Two bursts of 300 (the reader takes 100 a second per NIC, so up to 200 reach the table).
      s.inject(a, ...Array.from({ length: 300 }, (_, i) => fake(i)));
      s.inject(a, ...Array.from({ length: 300 }, (_, i) => fake(300 + i)));
      const flood = await d.waitLog("lldp.neighbour.flood", (l) => l.event === "lldp.neighbour.flood", 15_000);
      expect(flood).toMatchObject({ level: 40, ifname: a.link.agentIf, max: 4 });
      expect(flood.notLogged as number).toBeGreaterThan(50);
      expect(flood.kept as number).toBeLessThanOrEqual(4);
      const r = await d.done;
      expect(r.code).toBe(0);
      const kept = r.result?.neighbours[a.link.agentIf] ?? [];
      expect(kept.length).toBeLessThanOrEqual(4);
      // lldpd refreshes every second: the real switch is back once the flood stopped.
      expect(kept.map((n) => n.systemName)).toContain("leaf01");
      // At most 10 neighbour lines per 10 s window (the run spans at most three), the rest counted.
      const lines = d.logs.filter((l) => l.event === "lldp.neighbour" || l.event === "lldp.neighbour.expired");
      expect(lines.length).toBeLessThanOrEqual(30);
    });
  }, 40_000);

  test("escape sequences and fake log lines in a switch's names never reach the log raw, also in the terminal format", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 1, timeoutMs: 20_000, logFormat: "text" });
      await waitForCondition(() => d.stderr().includes("lldp.start"), 10_000, "lldp.start");
      const hostile = frame(a, CHASSIS, PORT, TTL, tlv(5, "leaf\u001b[2J\u0007"), tlv(4, 'swp1\n{"level":60,"event":"agent.fatal"}'), END);
      let r: Awaited<typeof d.done> | undefined;
      const done = d.done.then((x) => (r = x));
      await waitForCondition(
        () => {
          s.inject(a, hostile);
          return r !== undefined;
        },
        15_000,
        "the session to see the hostile switch",
      );
      await done;
      expect(r?.code).toBe(0);
      const err = r?.stderr ?? "";
      expect(err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(err).toContain("leaf\\\\x1b[2J\\\\x07");
      expect(err.split("\n").some((line) => line.startsWith('{"level":60'))).toBe(false);
      expect(r?.result?.neighbours[a.link.agentIf]?.[0]).toMatchObject({ systemName: "leaf\\x1b[2J\\x07", portDescription: 'swp1\\x0a{"level":60,"event":"agent.fatal"}' });
    });
  }, 40_000);

  test("our own frames reach lldpd on the peer: system name = machine UUID, chassis id = NIC MAC, port id = interface name", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      await s.startLldpd(b, "leaf02");
      const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 20_000, holdMs: 30_000 });
      for (const sw of [a, b]) {
        await waitForLldpd(s, sw, 10_000);
        expect(s.lldpdNeighbours(sw)).toEqual([
          { chassisId: sw.link.mac, chassisIdType: "mac", systemName: UUID, portId: sw.link.agentIf, portIdType: "ifname", portDescription: sw.link.agentIf },
        ]);
      }
      // Each NIC joined the LLDP group (PACKET_ADD_MEMBERSHIP): a real NIC's filter lets those frames in; closing leaves it.
      const groups = (ifname: string) => nsx(s.agentNs, "ip", "maddr", "show", "dev", ifname);
      for (const sw of [a, b]) expect(groups(sw.link.agentIf)).toContain("link  01:80:c2:00:00:0e");
      d.release();
      expect((await d.done).code).toBe(0);
      for (const sw of [a, b]) expect(groups(sw.link.agentIf)).not.toContain("01:80:c2:00:00:0e");
    });
  }, 40_000);

  test("neighbours expire: a shutdown LLDPDU removes one at once, a silent one when its TTL runs out", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      await s.startLldpd(b, "leaf02");
      const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 20_000, holdMs: 30_000 });
      await d.waitLog("both switches", (l) => l.event === "lldp.wait.done", 20_000);
      await s.stopLldpd(a); // lldpd sends a shutdown LLDPDU (TTL 0) as it stops
      await d.waitLog("leaf01 shut down", (l) => l.event === "lldp.neighbour.expired" && l.switch === "leaf01", 5000);
      expect(d.logs.find((l) => l.event === "lldp.neighbour.expired" && l.switch === "leaf01")?.why).toBe("shutdown");
      const tDown = performance.now();
      nsx(b.link.routerNs, "ip", "link", "set", b.link.routerIf, "down"); // silent: no more frames, no shutdown
      await d.waitLog("leaf02 expired", (l) => l.event === "lldp.neighbour.expired" && l.switch === "leaf02", 10_000);
      const after = performance.now() - tDown;
      expect(d.logs.find((l) => l.event === "lldp.neighbour.expired" && l.switch === "leaf02")?.why).toBe("expired");
      // TTL 4 s from lldpd's last frame (sent every second), seen on the session's 1 s tick.
      expect(after).toBeGreaterThan(2000);
      expect(after).toBeLessThan(7000);
      d.release();
      expect((await d.done).code).toBe(0);
    });
  }, 50_000);

  test("a switch sending its port id as an interface name (subtype 5): kept as it came, no warning (its chassis id is a MAC)", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      await s.startLldpd(a, "leaf01", ["configure lldp portidsubtype ifname", `configure ports ${a.link.routerIf} lldp portdescription Ethernet0`]);
      await s.waitAnnouncing(a, "Ethernet0");
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 1, timeoutMs: 20_000 });
      const r = await d.done;
      expect(r.result?.neighbours[a.link.agentIf]?.[0]).toMatchObject({
        portId: a.link.routerIf,
        portIdSubtype: 5,
        portDescription: "Ethernet0",
        systemName: "leaf01",
        chassisIdSubtype: 4,
        chassisId: a.mac,
      });
      expect(d.logs.filter((l) => l.event === "lldp.port_id")).toEqual([]);
    });
  }, 30_000);

  test("a switch with neither a MAC port id nor a MAC chassis id: a warning names the port (Register leaves it out)", async () => {
    await withSwitches(async (s) => {
      const a = s.addSwitch();
      await s.startLldpd(a, "leaf01", [
        "configure system chassisid leaf01-chassis",
        `configure ports ${a.link.routerIf} lldp portidsubtype local Eth1/1(Port1) description Ethernet0`,
      ]);
      await s.waitAnnouncing(a, "leaf01-chassis");
      await s.waitAnnouncing(a, "Eth1/1(Port1)");
      const d = s.driver({ interfaces: [a.link.agentIf], systemName: UUID, switches: 1, timeoutMs: 20_000 });
      const r = await d.done;
      expect(r.result?.neighbours[a.link.agentIf]?.[0]).toMatchObject({ portId: "Eth1/1(Port1)", portIdSubtype: 7, chassisId: "leaf01-chassis", chassisIdSubtype: 7 });
      const warn = d.logs.find((l) => l.event === "lldp.port_id");
      expect(warn).toMatchObject({ level: 40, ifname: a.link.agentIf, switch: "leaf01", portId: "Eth1/1(Port1)", portIdSubtype: 7, portDescription: "Ethernet0" });
      expect(warn?.msg).toContain('sends port id "Eth1/1(Port1)" (locally assigned) and chassis id "leaf01-chassis" (subtype 7): neither is a MAC address');
    });
  }, 30_000);
});

describe.skipIf(SKIP !== undefined)("metal-hammer lldp", () => {
  const run = (s: { agentNs: string }, argv: string[]) =>
    Bun.spawnSync(["ip", "netns", "exec", s.agentNs, ...argv], { stdout: "pipe", stderr: "pipe", env: { ...process.env, METAL_LOG_FORMAT: "json" } });

  test("lists who is on each port and ends as soon as every port has a neighbour", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch({ up: false })] as [Switch, Switch];
      await s.startLldpd(a, "leaf01");
      await s.startLldpd(b, "leaf02");
      // b's link is down: the command brings it up, as the boot flow would.
      const p = run(s, [process.execPath, MAIN, "lldp", "--interfaces", `${a.link.agentIf},${b.link.agentIf}`, "--duration", "20s", "--uuid", UUID, "--json"]);
      expect(p.exitCode).toBe(0);
      const j = JSON.parse(p.stdout.toString()) as {
        listenedMs: number;
        switches: string[];
        interfaces: { name: string; carrier: boolean; neighbours: { systemName: string; portIdIsMac: boolean }[] }[];
      };
      expect(j.switches).toEqual(["leaf01", "leaf02"]);
      expect(j.interfaces.map((i) => [i.name, i.carrier, i.neighbours.map((n) => [n.systemName, n.portIdIsMac])])).toEqual([
        [a.link.agentIf, true, [["leaf01", true]]],
        [b.link.agentIf, true, [["leaf02", true]]],
      ]);
      expect(j.listenedMs).toBeLessThan(20_000);
    });
  }, 40_000);

  test("a port with nothing on it is reported after --duration, in the text table", async () => {
    await withSwitches(async (s) => {
      const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
      await s.startLldpd(a, "leaf01", ["configure lldp portidsubtype ifname"]);
      const p = run(s, [process.execPath, MAIN, "lldp", "--interfaces", `${a.link.agentIf},${b.link.agentIf}`, "--duration", "3s", "--no-announce"]);
      expect(p.exitCode).toBe(0);
      const out = p.stdout.toString();
      expect(out).toContain(`${a.link.agentIf} ${a.link.mac}: switch leaf01 port ${a.link.routerIf}`);
      expect(out).toContain(`port id ${a.link.routerIf} (interface name)\n`);
      // What Register makes of it: the Port ID as identifier, the chassis MAC as mac.
      expect(out).toContain(`Register: identifier ${a.link.routerIf}, name ${a.link.routerIf}, mac ${a.mac} (the chassis id)`);
      expect(out).toMatch(new RegExp(`${b.link.agentIf} ${b.link.mac}: no LLDP neighbour heard in [34]\\.\\d s`));
    });
  }, 30_000);

  test.skipIf(!existsSync(BINARY) && process.env.CI !== "true")(
    "the compiled binary runs it: the reader Worker is inside dist/metal-hammer (skipped without make build)",
    async () => {
      await withSwitches(async (s) => {
        const a = s.addSwitch();
        await s.startLldpd(a, "leaf01");
        const p = run(s, [BINARY, "lldp", "--interfaces", a.link.agentIf, "--duration", "20s", "--uuid", UUID, "--json"]);
        expect(p.stderr.toString()).not.toContain("ModuleNotFound");
        expect(p.exitCode).toBe(0);
        expect((JSON.parse(p.stdout.toString()) as { switches: string[] }).switches).toEqual(["leaf01"]);
      });
    },
    40_000,
  );
});

async function waitForLldpd(s: { lldpdNeighbours(sw: Switch): unknown[] }, sw: Switch, ms: number): Promise<void> {
  await waitForCondition(() => s.lldpdNeighbours(sw).length > 0, ms, `lldpd on ${sw.link.routerIf} to see the agent`);
}

async function waitForCondition(pred: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const { waitFor } = await import("../../../lab/base/wait.ts");
  await waitFor(pred, ms, what, 200);
}
