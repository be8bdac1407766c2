import { describe, expect, test } from "bun:test";
import { eui64, nsx } from "../../helpers/netns.ts";
import { events } from "./agent.ts";
import { holdAgentAddressOnRouter, netUp, PREFIX, SKIP, withLab } from "./lab.ts";

describe.skipIf(SKIP !== undefined)("net up --fast", () => {
  test("same result, and DAD is still performed: the address passes through tentative (optimistic)", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "slaac.conf");
      const r = await netUp(lab, l, "--timeout", "20s", "--fast", "--json");
      expect(r.code).toBe(0);
      const want = `${eui64(PREFIX, l.mac)}/64`;
      expect((JSON.parse(r.stdout) as { interfaces: { addresses: string[] }[] }).interfaces[0]?.addresses).toEqual([want]);
      expect(events(r.logs, "net.addr.tentative")[0]).toMatchObject({ address: want, optimistic: true });
      expect(events(r.logs, "net.dad.done")[0]).toMatchObject({ address: want });
      const conf = (k: string) => nsx(lab.agentNs, "sysctl", "-n", `net.ipv6.conf.${l.agentIf}.${k}`).trim();
      expect([conf("optimistic_dad"), conf("router_solicitation_delay"), conf("accept_dad"), conf("dad_transmits")]).toEqual(["1", "0", "1", "1"]);
      expect(nsx(lab.agentNs, "sysctl", "-n", `net.ipv6.neigh.${l.agentIf}.retrans_time_ms`).trim()).toBe("100");
    });
  }, 30_000);

  test("a duplicate is still caught (exit 12)", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      const dup = holdAgentAddressOnRouter(l);
      await lab.radvd(l, "slaac.conf");
      const r = await netUp(lab, l, "--timeout", "20s", "--fast");
      expect(r.code).toBe(12);
      expect(r.stderr).toContain(`duplicate address ${dup} (DAD failed)`);
      expect(events(r.logs, "net.ready")).toHaveLength(0);
    });
  }, 30_000);
});
