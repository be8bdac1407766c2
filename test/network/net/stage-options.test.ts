/**
 * The network stage hands the kernel cmdline's choices to bring-up (issue 12): by default
 * no RFC delay and our own RS (rsDelay false, solicit left to its default: on), the RFC
 * delay back with METAL_NET_RS_DELAY=1; DNS needed only for a metal-boot host name; NICs
 * selected by METAL_NICS under the stages' sysfs root (--sysfs).
 */
import { describe, expect, test } from "bun:test";
import { configFromCmdline } from "../../../src/config/config.ts";
import { network } from "../../../src/agent/network-stage.ts";
import type { Services } from "../../../src/agent/services.ts";
import type { BringupOptions } from "../../../src/network/net/bringup.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

/** What the stage followed as uplinks after bring-up (the names of the summary's NICs). */
const followed: (readonly string[])[] = [];

async function stageOptions(cmdline: string): Promise<BringupOptions> {
  const seen: BringupOptions[] = [];
  const s = {
    uplinks: { follow: (names: readonly string[]) => (followed.push(names), []) },
    log: createLogger({ level: "silent", format: "json", write: () => true, secrets: new SecretSet() }),
    resolvConf: "/tmp/resolv.conf",
    sysRoot: "/tmp/mh-sysfs",
    bringUp: async (o: BringupOptions) => {
      seen.push(o);
      return {
        summary: {
          interfaces: [
            { name: "eth0", mac: "52:54:00:00:00:01", addresses: [], defaultRouters: [], state: "ready" },
            { name: "eth1", mac: "52:54:00:00:00:02", addresses: [], defaultRouters: [], state: "ra" },
          ],
          dns: { servers: [], search: [] },
          timingsMs: {},
        },
        linkUpAt: 0,
        readyAt: 0,
        ready: [],
        startup: { entered: 0, subscribed: 0, selected: 0, sysctls: 0 },
      };
    },
  } as unknown as Services;
  await network(configFromCmdline(cmdline), s);
  expect(seen).toHaveLength(1);
  return seen[0] as BringupOptions;
}

describe("network stage options from the kernel cmdline", () => {
  test("default (l3): no RFC delay, our own RS (solicit not turned off), DAD profile stock", async () => {
    const o = await stageOptions("METAL_BOOT_URL=https://[2001:db8::10]/");
    expect(o.rsDelay).toBe(false);
    expect(o.solicit).toBeUndefined(); // bringUp: solicit = !rsDelay
    expect(o.fast).toBe(false);
    expect(o.dnsNeeded).toBe(false); // an IPv6 literal needs no DNS
  });

  test("METAL_NET_RS_DELAY=1 keeps the RFC delay (shared segments); a host name needs DNS", async () => {
    const o = await stageOptions("METAL_BOOT_URL=https://boot.example/ METAL_NET_RS_DELAY=1");
    expect(o.rsDelay).toBe(true);
    expect(o.dnsNeeded).toBe(true);
  });

  test("METAL_NICS and the stages' sysfs root (--sysfs) reach bring-up's NIC selection", async () => {
    const o = await stageOptions("METAL_BOOT_URL=https://[2001:db8::10]/ METAL_NICS=eth7,0c:c4:7a:00:00:01");
    expect(o.sysfsRoot).toBe("/tmp/mh-sysfs");
    expect(o.selectors).toEqual([
      { kind: "name", name: "eth7" },
      { kind: "mac", mac: "0c:c4:7a:00:00:01" },
    ]);
  });
  test("after bring-up, every selected NIC is followed as an uplink (ready or not yet), in the selection's order", async () => {
    followed.length = 0;
    await stageOptions("METAL_BOOT_URL=https://[2001:db8::10]/");
    expect(followed).toEqual([["eth0", "eth1"]]);
  });
});
