import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eui64, nsx } from "../../helpers/netns.ts";
import { events, runAgent } from "./agent.ts";
import { holdAgentAddressOnRouter, netUp, PREFIX, SKIP, withLab } from "./lab.ts";

describe.skipIf(SKIP !== undefined)("net up: when the network cannot become ready", () => {
  test("no RA: bounded by the timeout, exit 11, the error names the interface and the step", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      const r = await netUp(lab, l, "--timeout", "3s");
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(`${l.agentIf}: no router advertisement after 3s`);
      expect(r.ms).toBeLessThan(8000);
      expect(events(r.logs, "net.timeout")).toHaveLength(1);
    });
  }, 20_000);

  test("DAD failure: the router already holds the address -> reported within one RA interval, exit 12", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      const dup = holdAgentAddressOnRouter(l);
      await lab.radvd(l, "slaac.conf");
      const r = await netUp(lab, l, "--timeout", "30s");
      expect(r.code).toBe(12);
      expect(r.stderr).toContain(`${l.agentIf}: duplicate address ${dup} (DAD failed)`);
      const failed = events(r.logs, "net.dad.failed");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ ifname: l.agentIf, address: dup });
      expect(r.ms).toBeLessThan(4000 + 3000); // MaxRtrAdvInterval 4 s + DAD (1 s) + start-up
    });
  }, 30_000);

  test("a duplicate link-local address (the kernel keeps it, flagged dadfailed) is reported at once, exit 12", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      const ll = eui64("fe80::", l.mac);
      nsx(l.routerNs, "ip", "-6", "addr", "add", `${ll}/64`, "dev", l.routerIf, "nodad");
      // Two probes, 1 s apart (the agent keeps a higher dad_transmits). With no RS delay the
      // first probe leaves as the link comes up; the router side's transmit path is activated
      // by the kernel's linkwatch at about the same time, and its answer to that first probe
      // can be dropped (seen once in CI: no duplicate found). A real switch port is up long before.
      nsx(lab.agentNs, "sysctl", "-qw", `net.ipv6.conf.${l.agentIf}.dad_transmits=2`);
      const r = await netUp(lab, l, "--timeout", "30s");
      expect(r.code).toBe(12);
      expect(r.stderr).toContain(`${l.agentIf}: duplicate address ${ll} (DAD failed)`);
      expect(r.ms).toBeLessThan(5000);
    });
  }, 30_000);

  test("router lifetime 0: the address comes but no default route -> not ready, and it says why", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "router-lifetime-0.conf");
      // Bounded by the timeout (never ready): 4 s is the RA at link-up plus one 1 s DAD with room to spare.
      const r = await netUp(lab, l, "--timeout", "4s");
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(`${l.agentIf}: address ${eui64(PREFIX, l.mac)} usable but no default route (router lifetime 0`);
      expect(events(r.logs, "net.route.default")).toHaveLength(0);
    });
  }, 20_000);

  test("prefix with the autonomous flag off: no SLAAC address, and it says why", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "no-autonomous.conf");
      // Bounded by the timeout (never ready): 4 s is the RA at link-up plus one 1 s DAD with room to spare.
      const r = await netUp(lab, l, "--timeout", "4s");
      expect(r.code).toBe(11);
      expect(r.stderr).toContain(`${l.agentIf}: no SLAAC address: prefix 2001:db8:1::/64 has the autonomous flag off`);
      expect(nsx(lab.agentNs, "ip", "-6", "addr", "show", "dev", l.agentIf, "scope", "global").trim()).toBe("");
    });
  }, 20_000);

  test("no carrier: reported with exit 14 after the carrier grace, not waited on for the whole timeout", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      nsx(l.routerNs, "ip", "link", "set", l.routerIf, "down");
      const r = await netUp(lab, l, "--timeout", "60s", "--carrier-timeout", "2s");
      expect(r.code).toBe(14);
      expect(r.stderr).toContain(`${l.agentIf}: no carrier after 2s`);
      expect(r.ms).toBeLessThan(6000);
    });
  }, 20_000);

  test("no matching interface: exit 10 naming what was asked for", async () => {
    await withLab(async (lab) => {
      const r = await runAgent(lab, ["up", "--interfaces", "mhn-nope0", "--timeout", "3s", "--resolv-conf", join(lab.dir, "resolv.conf")]);
      expect(r.code).toBe(10);
      expect(r.stderr).toContain("no network interface matches METAL_NICS mhn-nope0; present: lo");
    });
  }, 20_000);

  test("a bad option value is a usage error (exit 2) naming the flag", async () => {
    await withLab(async (lab) => {
      const r = await runAgent(lab, ["up", "--policy", "some", "--resolv-conf", join(lab.dir, "resolv.conf")]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--policy "some": expected any or all');
    });
  }, 20_000);
});
