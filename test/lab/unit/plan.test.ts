import { describe, expect, test } from "bun:test";
import { guestCmdline, guestMac, labNames, labRadvdPorts, lldpdArgv, lldpdConf, lldpdPortsConf, qemuArgv, switchName, withPrivateRun } from "../../../lab/rig/plan.ts";
import { radvdConf } from "../../../lab/rig/radvd-conf.ts";
import { defaultRun } from "../../../lab/direct/lab.ts";

describe("lab plan", () => {
  test("names carry the mhl prefix and the run's id, and fit IFNAMSIZ", () => {
    const n = labNames({ id: "abcdef12", nics: 2 });
    expect(n).toEqual({ netns: "mhl-abcdef12", taps: ["mhlabcdef12t0", "mhlabcdef12t1"] });
    for (const t of n.taps) expect(t.length).toBeLessThanOrEqual(15);
    expect(() => labNames({ id: "../x", nics: 1 })).toThrow(/expected 1-8 hex digits/);
  });

  test("radvd advertises one /64 per tap with RDNSS and DNSSL", () => {
    expect(labRadvdPorts(["t0", "t1"])[1]).toEqual({ ifname: "t1", prefix: "fd6d:686c:0:2::/64", rdnss: ["fd6d:686c:0:ffff::53"], dnssl: ["lab.metal"] });
    expect(radvdConf(labRadvdPorts(["t0"]))).toBe(`interface t0 {
  AdvSendAdvert on;
  MinRtrAdvInterval 3;
  MaxRtrAdvInterval 10;
  AdvDefaultLifetime 600;
  prefix fd6d:686c:0:1::/64 {
    AdvOnLink on;
    AdvAutonomous on;
  };
  RDNSS fd6d:686c:0:ffff::53 {
  };
  DNSSL lab.metal {
  };
};
`);
  });

  test("the guest cmdline asks for JSON logs, power-off when done, and carries the options", () => {
    const c = guestCmdline(defaultRun({ id: "1", fast: true, debug: true, extraCmdline: ["METAL_NICS=eth0"] }));
    expect(c.split(" ")).toEqual(expect.arrayContaining(["console=ttyS0,115200", "METAL_LOG_FORMAT=json", "METAL_DONE=poweroff", "METAL_NET_FAST=1", "DEBUG=1"]));
    expect(c.endsWith("METAL_NICS=eth0")).toBe(true);
  });

  test("QEMU: TCG-safe CPU, no reboot, serial on stdio, one tap NIC per tap with an empty ROM", () => {
    const run = defaultRun({ id: "2", nics: 2, nicModel: "e1000" });
    const argv = qemuArgv(run, labNames(run));
    expect(argv.slice(argv.indexOf("-cpu"), argv.indexOf("-cpu") + 2)).toEqual(["-cpu", "max"]);
    expect(argv).toContain("-no-reboot");
    expect(argv.filter((a) => a.startsWith("e1000,"))).toEqual([`e1000,netdev=n0,mac=${guestMac(0)},romfile=`, `e1000,netdev=n1,mac=${guestMac(1)},romfile=`]);
    expect(argv).toContain("tap,id=n1,ifname=mhl2t1,script=no,downscript=no");
  });

  test("the default lab is a machine on a leaf pair: two NICs, each segment with its own lldpd switch", () => {
    const run = defaultRun({ id: "3" });
    expect([run.nics, run.lldp]).toEqual([2, true]);
    expect(labNames(run).taps.map((_, i) => switchName(i))).toEqual(["leaf01", "leaf02"]);
    // SONiC (default) as lldpmgrd configures lldpd: global ifname, then the port's alias as a local Port ID and its description.
    expect(lldpdConf("mhl3t1", "leaf02")).toBe(
      "configure system hostname leaf02\nconfigure lldp portidsubtype ifname\nconfigure ports mhl3t1 lldp portidsubtype local Eth1/1(Port1) description Ethernet0\nconfigure lldp tx-interval 1\n",
    );
    expect(lldpdConf("mhct01", "leaf01", "sonic", 1)).toContain("configure ports mhct01 lldp portidsubtype local Eth1/2(Port2) description Ethernet4\n");
    // Cumulus: lldpd's defaults (Port ID = the port's MAC), the port's name swpN as description.
    expect(lldpdConf("mhl3t1", "leaf02", "cumulus")).toBe("configure system hostname leaf02\nconfigure ports mhl3t1 lldp portdescription swp1\nconfigure lldp tx-interval 1\n");
    // The fleet's leaf: one lldpd on every port of its bridge, each port as lldpmgrd configures it, its own hello interval.
    expect(
      lldpdPortsConf(
        "leaf01",
        "sonic",
        [
          { tap: "p0", port: 0 },
          { tap: "p1", port: 1 },
        ],
        10,
      ),
    ).toBe(
      "configure system hostname leaf01\nconfigure lldp portidsubtype ifname\nconfigure ports p0 lldp portidsubtype local Eth1/1(Port1) description Ethernet0\nconfigure ports p1 lldp portidsubtype local Eth1/2(Port2) description Ethernet4\nconfigure lldp tx-interval 10\n",
    );
    // Chassis id from its own tap, its own control socket: never the host's /run/lldpd.socket.
    expect(lldpdArgv("mhl3t1", "/tmp/x")).toEqual(
      withPrivateRun(["lldpd", "-d", "-I", "mhl3t1", "-C", "mhl3t1", "-u", "/tmp/x/lldpd-mhl3t1.sock", "-O", "/tmp/x/lldpd-mhl3t1.conf"]),
    );
    expect(withPrivateRun(["lldpd"]).slice(0, 5)).toEqual(["unshare", "--mount", "--propagation", "private", "sh"]);
  });
});
