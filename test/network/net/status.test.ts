import { describe, expect, test } from "bun:test";
import { decodeMessages } from "../../../src/network/netlink/message.ts";
import { parseResolvConf, renderStatus, statusView } from "../../../src/network/net/status.ts";
import { fixture } from "../netlink/fixtures.ts";

const bodies = ["dump-links", "dump-addrs", "dump-routes"].flatMap((n) => fixture(n).flatMap((d) => decodeMessages(d).map((m) => m.body)));

describe("net status", () => {
  test("shows each link with state, MAC, addresses with flags and lifetimes, the gateway, and DNS (from recorded dumps)", () => {
    const text = renderStatus(statusView(bodies, parseResolvConf("nameserver 2001:db8:1::53\nsearch lab.example\n")));
    expect(text).toMatch(/● 2: mhn[0-9a-f]{4}a0 \(veth\)\n {8}State: up, carrier yes, operstate up\n {5}HW Addr: 02:00:00:00:aa:01 {3}MTU: 1500\n/);
    expect(text).toContain("     Address: 2001:db8:1::ff:fe00:aa01/64 (global, mngtmpaddr; preferred 14400s, valid 86400s)\n");
    expect(text).toContain("              fe80::ff:fe00:aa01/64 (link, permanent; preferred forever, valid forever)\n");
    expect(text).toMatch(/ {5}Gateway: fe80::[0-9a-f:]+ \(ra, expires \d+s\)\n/);
    expect(text).toEndWith("         DNS: 2001:db8:1::53\n  Search Dom: lab.example\n");
  });
});
