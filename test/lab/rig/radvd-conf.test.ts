import { describe, expect, test } from "bun:test";
import { radvdConf } from "../../../lab/rig/radvd-conf.ts";

describe("radvd config renderer", () => {
  test("each port gets its own block with its /64, a default route and the RA timing", () => {
    expect(radvdConf([{ ifname: "mhct1a2b3c0", prefix: "2001:db8:a::/64" }])).toBe(
      "interface mhct1a2b3c0 {\n  AdvSendAdvert on;\n  MinRtrAdvInterval 3;\n  MaxRtrAdvInterval 10;\n  AdvDefaultLifetime 600;\n  prefix 2001:db8:a::/64 {\n    AdvOnLink on;\n    AdvAutonomous on;\n  };\n};\n",
    );
  });

  test("RDNSS and DNSSL are written only when given, with every address and domain", () => {
    const conf = radvdConf([
      { ifname: "br0", prefix: "2001:db8:f1::/64", rdnss: ["2001:db8:f1::53", "2001:db8:f1::54"], dnssl: ["chain.lab", "corp.example"] },
      { ifname: "t1", prefix: "2001:db8:b::/64", rdnss: [] },
    ]);
    expect(conf).toContain("  RDNSS 2001:db8:f1::53 2001:db8:f1::54 {\n  };\n  DNSSL chain.lab corp.example {\n  };\n};\n");
    const second = conf.slice(conf.indexOf("interface t1 {"));
    expect(second).toContain("prefix 2001:db8:b::/64 {");
    expect(second).not.toContain("RDNSS");
    expect(second).not.toContain("DNSSL");
  });

  test("ports come out in the order given; no port, no block", () => {
    const conf = radvdConf([
      { ifname: "t1", prefix: "2001:db8:b::/64" },
      { ifname: "t0", prefix: "2001:db8:a::/64" },
    ]);
    expect([...conf.matchAll(/^interface (\S+) \{$/gm)].map((m) => m[1])).toEqual(["t1", "t0"]);
    expect(radvdConf([])).toBe("");
  });

  test("a prefix that is not a /64 is refused, naming the port", () => {
    expect(() => radvdConf([{ ifname: "t0", prefix: "2001:db8:a::/48" }])).toThrow('radvd port t0: prefix "2001:db8:a::/48": expected a /64 like 2001:db8:a::/64');
    expect(() => radvdConf([{ ifname: "t0", prefix: "2001:db8:a::" }])).toThrow(/expected a \/64/);
  });

  test("an interface name radvd would not take (too long, a space, a brace) is refused", () => {
    for (const ifname of ["a-name-longer-than-15", "t 0", "t0{", ""])
      expect(() => radvdConf([{ ifname, prefix: "2001:db8:a::/64" }])).toThrow(/expected an interface name of 1-15/);
  });

  test("the same interface twice is refused (radvd would take only one block)", () => {
    expect(() =>
      radvdConf([
        { ifname: "t0", prefix: "2001:db8:a::/64" },
        { ifname: "t0", prefix: "2001:db8:b::/64" },
      ]),
    ).toThrow("radvd port t0: given twice (one block per interface)");
  });
});
