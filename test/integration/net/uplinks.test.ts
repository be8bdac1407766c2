/**
 * The uplinks' routing in the kernel (root, radvd): two NICs on two routers, each with
 * its own /64 (radvd, high and low router preference). The uplink table writes a table
 * per NIC with its default route and a source rule for its address over rtnetlink; the
 * kernel routes a packet from each address out of that address's own NIC, whatever the
 * main table prefers, and the main table is left as the RAs made it. Closing removes it all.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eui64, nsx, sh } from "../../helpers/netns.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { SKIP, withLab } from "./lab.ts";

const DRIVER = join(import.meta.dir, "uplink-driver.ts");
const SERVER = "2001:db8:ff::1";

describe.skipIf(SKIP !== undefined)("uplinks: a routing table and a source rule per NIC", () => {
  test("each address leaves through its own NIC and router; the main table keeps the preferred router; closing removes tables and rules", async () => {
    await withLab(async (lab) => {
      const high = lab.addLink();
      const low = lab.addLink();
      await lab.radvd(high, "dual-1-high.conf");
      await lab.radvd(low, "dual-2-low.conf");
      for (const l of [high, low]) nsx(lab.agentNs, "ip", "link", "set", l.agentIf, "up");
      const addrHigh = eui64("2001:db8:1::", high.mac);
      const addrLow = eui64("2001:db8:2::", low.mac);
      // The main table's default routes, without their running expiry.
      const defaults = () => nsx(lab.agentNs, "ip", "-6", "route", "show", "default").replace(/ expires \d+sec/g, "");
      const usable = (a: string) => !/tentative/.test(nsx(lab.agentNs, "ip", "-6", "addr", "show", "to", a)) && nsx(lab.agentNs, "ip", "-6", "addr", "show", "to", a).includes(a);
      await waitFor(() => usable(addrHigh) && usable(addrLow) && (defaults().match(/via/g) ?? []).length === 2, 15_000, "both SLAAC addresses usable and both default routes");
      const mainBefore = defaults();

      const run = (mode: string) =>
        JSON.parse(nsx(lab.agentNs, process.execPath, DRIVER, mode, low.agentIf, high.agentIf)) as {
          name: string;
          address: string;
          router: string;
          preference: string;
          ifindex: number;
        }[];
      const uplinks = run("follow");
      // In the kernel's order: the high-preference router first, whatever the selection's order.
      expect(uplinks.map((u) => [u.name, u.address, u.router, u.preference])).toEqual([
        [high.agentIf, addrHigh, lab.routerLinkLocal(high), "high"],
        [low.agentIf, addrLow, lab.routerLinkLocal(low), "low"],
      ]);
      const rules = nsx(lab.agentNs, "ip", "-6", "rule", "show");
      expect(rules).toContain("999:\tfrom all lookup main suppress_prefixlength 0");
      for (const u of uplinks) {
        expect(rules).toContain(`1000:\tfrom ${u.address} lookup ${1000 + u.ifindex}`);
        expect(nsx(lab.agentNs, "ip", "-6", "route", "show", "table", String(1000 + u.ifindex)).trim()).toBe(
          `default via ${u.router} dev ${u.name} proto static metric 1024 pref medium`,
        );
      }
      // The kernel's choice for a server behind both routers: unbound via the preferred router; bound, each address its own NIC.
      expect(nsx(lab.agentNs, "ip", "-6", "route", "get", SERVER)).toContain(`via ${lab.routerLinkLocal(high)} dev ${high.agentIf}`);
      expect(nsx(lab.agentNs, "ip", "-6", "route", "get", SERVER, "from", addrLow)).toContain(
        `via ${lab.routerLinkLocal(low)} dev ${low.agentIf} table ${1000 + uplinks[1]!.ifindex}`,
      );
      expect(nsx(lab.agentNs, "ip", "-6", "route", "get", SERVER, "from", addrHigh)).toContain(
        `via ${lab.routerLinkLocal(high)} dev ${high.agentIf} table ${1000 + uplinks[0]!.ifindex}`,
      );
      // The main table is the RAs' alone.
      expect(defaults()).toBe(mainBefore);

      // A second run over what the first left (a resumed agent): nothing doubled; then closing removes it all.
      run("follow-close");
      const after = nsx(lab.agentNs, "ip", "-6", "rule", "show");
      expect(after).not.toContain("suppress_prefixlength");
      expect(after).not.toContain("lookup 10");
      for (const u of uplinks) expect(sh("ip", "-n", lab.agentNs, "-6", "route", "show", "table", String(1000 + u.ifindex)).trim()).toBe("");
      expect(defaults()).toBe(mainBefore);
    });
  }, 60_000);
});
