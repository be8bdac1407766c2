import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { nsx } from "../../helpers/netns.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { events, runAgent, startAgent } from "./agent.ts";
import { holdAgentAddressOnRouter, SKIP, withLab } from "./lab.ts";

describe.skipIf(SKIP !== undefined)("net up: several NICs, flaps, and what is not selected", () => {
  test("two NICs, one without RA: any -> ready on the good one; all -> timeout naming the dead one", async () => {
    await withLab(async (lab) => {
      const good = lab.addLink();
      const dead = lab.addLink();
      await lab.radvd(good, "slaac.conf");
      const list = `${good.agentIf},${dead.agentIf}`;
      const any = await runAgent(lab, ["up", "--interfaces", list, "--policy", "any", "--timeout", "20s", "--resolv-conf", join(lab.dir, "resolv.conf"), "--json"]);
      expect(any.code).toBe(0);
      expect((JSON.parse(any.stdout) as { ready: string[] }).ready).toEqual([good.agentIf]);
      const all = await runAgent(lab, ["up", "--interfaces", list, "--policy", "all", "--timeout", "5s", "--resolv-conf", join(lab.dir, "resolv.conf")]);
      expect(all.code).toBe(11);
      expect(all.stderr).toContain(`${dead.agentIf}: no router advertisement after 5s`);
      expect(all.stderr).not.toContain(`${good.agentIf}:`);
    });
  }, 40_000);

  test("any: a DAD failure on one NIC and no carrier on another are reported while the third becomes ready", async () => {
    await withLab(async (lab) => {
      const good = lab.addLink();
      const dup = lab.addLink();
      const unplugged = lab.addLink();
      const address = holdAgentAddressOnRouter(dup);
      await lab.radvd(good, "slaac.conf");
      await lab.radvd(dup, "slaac.conf");
      nsx(unplugged.routerNs, "ip", "link", "set", unplugged.routerIf, "down");
      // Three DAD probes on the good NIC (kept by the agent: dad_transmits >= 1) make it ready
      // after >= 4 s, while the duplicate fails at its first probe (< 3 s): a fixed order.
      nsx(lab.agentNs, "sysctl", "-qw", `net.ipv6.conf.${good.agentIf}.dad_transmits=3`);
      const list = [good, dup, unplugged].map((l) => l.agentIf).join(",");
      const r = await runAgent(lab, ["up", "--interfaces", list, "--timeout", "20s", "--carrier-timeout", "1s", "--resolv-conf", join(lab.dir, "resolv.conf"), "--json"]);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { ready: string[] }).ready).toEqual([good.agentIf]);
      expect(events(r.logs, "net.link.nocarrier")).toMatchObject([{ ifname: unplugged.agentIf, msg: `${unplugged.agentIf}: no carrier after 1s` }]);
      expect(events(r.logs, "net.dad.failed")).toMatchObject([{ ifname: dup.agentIf, address }]);
    });
  }, 40_000);

  test("a link flap (peer down, then up) during the wait is followed and recovered from", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "slaac.conf");
      const a = startAgent(lab, ["up", "--interfaces", l.agentIf, "--timeout", "30s", "--resolv-conf", join(lab.dir, "resolv.conf")]);
      try {
        await waitFor(() => events(a.logs, "net.link.carrier").length > 0, 10_000, "carrier");
        nsx(l.routerNs, "ip", "link", "set", l.routerIf, "down");
        await waitFor(() => events(a.logs, "net.link.down").length > 0, 5000, "net.link.down");
        nsx(l.routerNs, "ip", "link", "set", l.routerIf, "up");
        const r = await a.done;
        expect(r.code).toBe(0);
        expect(events(r.logs, "net.link.carrier").map((e) => e.again ?? false)).toEqual([false, true]);
        expect(events(r.logs, "net.ready")).toHaveLength(1);
      } finally {
        a.kill();
      }
    });
  }, 40_000);

  test("an interface outside the selection is left exactly as it was (sysctls, flags)", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      const other = lab.addLink();
      await lab.radvd(l, "slaac.conf");
      await lab.radvd(other, "slaac.conf");
      const snapshot = () => ({
        sysctls: nsx(lab.agentNs, "sh", "-c", `cd /proc/sys/net/ipv6 && grep -r . conf/${other.agentIf} neigh/${other.agentIf} | sort`),
        link: JSON.parse(nsx(lab.agentNs, "ip", "-j", "link", "show", "dev", other.agentIf)) as { flags: string[]; operstate: string }[],
        addrs: nsx(lab.agentNs, "ip", "-6", "addr", "show", "dev", other.agentIf),
      });
      const before = snapshot();
      expect(before.link[0]?.flags).not.toContain("UP");
      const r = await runAgent(lab, ["up", "--interfaces", l.agentIf, "--timeout", "20s", "--fast", "--resolv-conf", join(lab.dir, "resolv.conf")]);
      expect(r.code).toBe(0);
      expect(snapshot()).toEqual(before);
    });
  }, 40_000);
});
