import { describe, expect, test } from "bun:test";
import { renderPorts } from "../../src/cli/lldp-command.ts";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

async function usage(args: string[]): Promise<string> {
  const c = captureContext();
  expect(await runCli(args, c.ctx)).toBe(2);
  return c.err();
}

describe("lldp command: bad input is a usage error (exit 2) naming the flag, before any socket", () => {
  test("--duration that is not a duration", async () => expect(await usage(["lldp", "--duration", "soon"])).toContain('--duration "soon": expected a duration'));
  test("--interfaces with a name that cannot be an interface", async () => expect(await usage(["lldp", "--interfaces", "eth0,bad name!"])).toContain("--interfaces"));
  test("--log-level that is not a level (was exit 1, 'internal error')", async () =>
    expect(await usage(["lldp", "--log-level", "bogus"])).toContain('--log-level "bogus": expected trace, debug, info, warn, error or fatal'));
  test("--uuid that is not a UUID", async () => expect(await usage(["lldp", "--uuid", "leaf01"])).toContain('--uuid "leaf01": expected a UUID'));
});

const n = (over: Record<string, unknown>) => ({
  interface: "eth0",
  chassisId: "0a:1b:2c:3d:4e:5f",
  chassisIdSubtype: 4,
  portId: "0a:1b:2c:3d:4e:60",
  portIdSubtype: 3,
  portDescription: "swp1",
  systemName: "leaf01",
  ttlSeconds: 120,
  managementAddresses: [] as string[],
  portIdIsMac: true,
  ...over,
});

test("the table says per port: switch and port, port id with its kind, chassis and TTL; and what is missing", () => {
  const text = renderPorts(
    [
      { name: "eth0", mac: "52:54:00:6d:68:01", carrier: true, neighbours: [n({})] },
      {
        name: "eth1",
        mac: "52:54:00:6d:68:02",
        carrier: true,
        neighbours: [
          n({ interface: "eth1", systemName: "leaf02", portId: "Ethernet0", portIdSubtype: 5, portDescription: "", portIdIsMac: false, managementAddresses: ["192.0.2.11"] }),
        ],
      },
      {
        name: "eth2",
        mac: "52:54:00:6d:68:03",
        carrier: true,
        neighbours: [
          n({
            interface: "eth2",
            systemName: "leaf03",
            chassisId: "leaf03",
            chassisIdSubtype: 7,
            portId: "Eth1/1(Port1)",
            portIdSubtype: 7,
            portDescription: "Ethernet0",
            portIdIsMac: false,
          }),
        ],
      },
      { name: "eth4", mac: "52:54:00:6d:68:05", carrier: true, neighbours: [] },
      { name: "eth3", mac: "52:54:00:6d:68:04", carrier: false, neighbours: [] },
    ],
    32_000,
  );
  expect(text.split("\n")).toEqual([
    "eth0 52:54:00:6d:68:01: switch leaf01 port swp1",
    "    port id 0a:1b:2c:3d:4e:60 (MAC address)",
    "    chassis 0a:1b:2c:3d:4e:5f, ttl 120 s",
    "    Register: identifier 0a:1b:2c:3d:4e:60, name swp1, mac 0a:1b:2c:3d:4e:60 (the port id)",
    "eth1 52:54:00:6d:68:02: switch leaf02 port (no description)",
    "    port id Ethernet0 (interface name)",
    "    chassis 0a:1b:2c:3d:4e:5f, ttl 120 s, management 192.0.2.11",
    "    Register: identifier Ethernet0, name Ethernet0, mac 0a:1b:2c:3d:4e:5f (the chassis id)",
    "eth2 52:54:00:6d:68:03: switch leaf03 port Ethernet0",
    "    port id Eth1/1(Port1) (locally assigned)",
    "    chassis leaf03, ttl 120 s",
    "    Register leaves it out: neither its port id (subtype 7) nor its chassis id (subtype 7) is a MAC address, and the apiserver requires a MAC for a neighbour's mac",
    "eth4 52:54:00:6d:68:05: no LLDP neighbour heard in 32.0 s",
    "eth3 52:54:00:6d:68:04: no carrier",
    "",
  ]);
});
