import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eui64, nsx } from "../../helpers/netns.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { events, runAgent, startAgent } from "./agent.ts";
import { PREFIX, SKIP, withLab } from "./lab.ts";

const etcResolv = () => {
  try {
    return createHash("sha256").update(readFileSync("/etc/resolv.conf")).digest("hex");
  } catch {
    return "absent";
  }
};

describe.skipIf(SKIP !== undefined)("net up: SLAAC", () => {
  test("forms the EUI-64 address of the veth's MAC, non-tentative, with a default route via the router's link-local", async () => {
    const before = etcResolv();
    await withLab(async (lab) => {
      const l = lab.addLink({ mac: "02:00:00:00:aa:01" });
      await lab.radvd(l, "slaac.conf");
      const r = await runAgent(lab, ["up", "--interfaces", l.agentIf, "--timeout", "20s", "--resolv-conf", join(lab.dir, "resolv.conf"), "--json"]);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { ready: string[]; interfaces: { addresses: string[]; defaultRouters: string[] }[] };
      const want = eui64(PREFIX, l.mac);
      expect(want).toBe("2001:db8:1::ff:fe00:aa01");
      expect(out.ready).toEqual([l.agentIf]);
      expect(out.interfaces[0]?.addresses).toEqual([`${want}/64`]);
      expect(out.interfaces[0]?.defaultRouters).toEqual([lab.routerLinkLocal(l)]);
      // What the kernel says, independently of the agent:
      const addrs = JSON.parse(nsx(lab.agentNs, "ip", "-6", "-j", "addr", "show", "dev", l.agentIf, "scope", "global")) as {
        addr_info: { local: string; tentative?: boolean; dadfailed?: boolean }[];
      }[];
      const a = addrs[0]?.addr_info.find((x) => x.local === want);
      expect(a).toBeDefined();
      expect(a?.tentative ?? false).toBe(false);
      expect(nsx(lab.agentNs, "ip", "-6", "route", "show", "default")).toContain(`default via ${lab.routerLinkLocal(l)} dev ${l.agentIf} proto ra`);
      // Every milestone was logged once, in order, with a time.
      const names = r.logs.filter((x) => typeof x.event === "string" && String(x.event).startsWith("net.") && x.event !== "net.dns").map((x) => x.event);
      for (const e of ["net.link.up", "net.link.carrier", "net.ra.seen", "net.addr.tentative", "net.dad.done", "net.route.default", "net.ready"])
        expect(names.filter((n) => n === e)).toHaveLength(1);
      expect(names.indexOf("net.addr.tentative")).toBeLessThan(names.indexOf("net.dad.done"));
      expect(events(r.logs, "net.dad.done")[0]?.ms).toBeGreaterThan(0);
      // The l3 default (issue 12): no random delay on the selected interface only, DAD as the kernel does it.
      const sysctl = (k: string) => nsx(lab.agentNs, "cat", `/proc/sys/net/ipv6/${k}`).trim();
      expect(
        [
          `conf/${l.agentIf}/router_solicitation_delay`,
          "conf/default/router_solicitation_delay",
          `conf/${l.agentIf}/dad_transmits`,
          `conf/${l.agentIf}/optimistic_dad`,
          `neigh/${l.agentIf}/retrans_time_ms`,
        ].map(sysctl),
      ).toEqual(["0", "1", "1", "0", "1000"]);
    });
    expect(etcResolv()).toBe(before);
  }, 30_000);

  test("RDNSS and DNSSL land in resolv.conf; an RDNSS lifetime of 0 removes the server", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "slaac.conf");
      const resolv = join(lab.dir, "resolv.conf");
      const up = await runAgent(lab, ["up", "--interfaces", l.agentIf, "--timeout", "20s", "--resolv-conf", resolv, "--need-dns"]);
      expect(up.code).toBe(0);
      expect(readFileSync(resolv, "utf8")).toBe(
        "# written by metal-hammer from router advertisements (RDNSS/DNSSL)\nnameserver 2001:db8:1::53\nnameserver 2001:db8:1::54\nsearch lab.example corp.example\n",
      );
      const w = startAgent(lab, ["watch", "--interfaces", l.agentIf, "--resolv-conf", resolv, "--duration", "20s", "--json"]);
      try {
        // The watcher must see an RA listing both servers before one is withdrawn.
        await waitFor(() => w.stdout().includes("rdnss 2001:db8:1::53,2001:db8:1::54 lifetime 30s"), 10_000, "net watch seeing the RDNSS option");
        lab.reloadRadvd(l, "rdnss-zero.conf");
        await waitFor(() => w.stdout().includes("rdnss 2001:db8:1::54 lifetime 0s"), 10_000, "an RA withdrawing 2001:db8:1::54");
        await waitFor(() => !readFileSync(resolv, "utf8").includes("2001:db8:1::54"), 2000, "2001:db8:1::54 removed from resolv.conf");
        expect(readFileSync(resolv, "utf8")).toBe(
          "# written by metal-hammer from router advertisements (RDNSS/DNSSL)\nnameserver 2001:db8:1::53\nsearch lab.example corp.example\n",
        );
      } finally {
        w.kill();
      }
    });
  }, 40_000);
});
