import { describe, expect, test } from "bun:test";
import * as K from "../../../src/network/netlink/constants.ts";
import { NetlinkDecodeError } from "../../../src/network/netlink/cursor.ts";
import { decodeMessages, type Body } from "../../../src/network/netlink/message.ts";
import { dumpAddrsRequest, dumpLinksRequest, setLinkUpRequest } from "../../../src/network/netlink/request.ts";
import { fixture, hexBytes, one } from "./fixtures.ts";

const bodies = (name: string): Body[] => fixture(name).flatMap((d) => decodeMessages(d).map((m) => m.body));
const only = <T extends Body["kind"]>(name: string, kind: T) => {
  const b = bodies(name).filter((x) => x.kind === kind);
  expect(b.length).toBe(1);
  return b[0] as Extract<Body, { kind: T }>;
};

describe("decoding messages recorded from the kernel", () => {
  test("a link dump lists lo and the veth with its MAC, operstate, carrier and kind, then NLMSG_DONE", () => {
    const b = bodies("dump-links");
    const links = b.filter((x) => x.kind === "link");
    expect(links.map((l) => [l.ifindex, l.name, l.mac, l.linkKind])).toEqual([
      [1, "lo", "00:00:00:00:00:00", undefined],
      [2, expect.stringMatching(/^mhn[0-9a-f]{4}a0$/), "02:00:00:00:aa:01", "veth"],
    ]);
    const veth = links[1];
    expect(veth?.operstate).toBe(K.IF_OPER_UP);
    expect(veth?.carrier).toBe(true);
    expect(veth!.flags & K.IFF_UP).toBe(K.IFF_UP);
    expect(veth!.flags & K.IFF_LOWER_UP).toBe(K.IFF_LOWER_UP);
    expect(b.at(-1)?.kind).toBe("done");
  });

  test("an address dump gives the SLAAC address (EUI-64 of the MAC) with lifetimes, and the link-local", () => {
    const addrs = bodies("dump-addrs").filter((x) => x.kind === "addr");
    const global = addrs.find((a) => a.address === "2001:db8:1::ff:fe00:aa01");
    expect(global).toMatchObject({ prefixlen: 64, scope: K.RT_SCOPE_UNIVERSE, ifindex: 2, cacheinfo: { preferred: 14400, valid: 86400 } });
    expect(global!.flags & (K.IFA_F_TENTATIVE | K.IFA_F_DADFAILED)).toBe(0);
    expect(addrs.find((a) => a.address === "fe80::ff:fe00:aa01")).toMatchObject({ scope: K.RT_SCOPE_LINK, flags: K.IFA_F_PERMANENT });
    expect(addrs.find((a) => a.address === "::1")?.scope).toBe(K.RT_SCOPE_HOST);
  });

  test("a route dump has the RA default route via the router's link-local with its expiry", () => {
    const def = bodies("dump-routes").filter((x) => x.kind === "route" && x.dstLen === 0 && x.table === K.RT_TABLE_MAIN);
    expect(def).toHaveLength(1);
    expect(def[0]).toMatchObject({ protocol: K.RTPROT_RA, oif: 2, priority: 1024 });
    const expires = (def[0] as { expiresS: number }).expiresS;
    expect(expires).toBeGreaterThan(25);
    expect(expires).toBeLessThanOrEqual(30); // AdvDefaultLifetime 30, in 1/100 s in rta_cacheinfo
    expect((def[0] as { gateway: string }).gateway).toMatch(/^fe80::/);
  });

  test("RTM_NEWPREFIX carries the prefix, its lifetimes and the raw L|A flag byte", () => {
    const p = only("event-newprefix", "prefix");
    expect(p).toMatchObject({ ifindex: 2, prefix: "2001:db8:1::", prefixlen: 64, preferred: 14400, valid: 86400 });
    expect(p.flags).toBe(K.ND_PREFIX_FLAG_ONLINK | K.ND_PREFIX_FLAG_AUTONOMOUS);
  });

  test("RTM_NEWNDUSEROPT with RDNSS gives the servers, lifetime and the router", () => {
    const u = only("event-nduseropt-rdnss", "useropt");
    expect(u.icmpType).toBe(K.ICMPV6_ND_ROUTER_ADVERT);
    expect(u.options).toEqual([{ type: K.ND_OPT_RDNSS, lifetime: 30, servers: ["2001:db8:1::53", "2001:db8:1::54"] }]);
    expect(u.source).toMatch(/^fe80::/);
  });

  test("RTM_NEWNDUSEROPT with DNSSL gives the search domains", () => {
    expect(only("event-nduseropt-dnssl", "useropt").options).toEqual([{ type: K.ND_OPT_DNSSL, lifetime: 30, domains: ["lab.example", "corp.example"] }]);
  });

  test("an ND option the codec does not know (prefix information) is kept as raw bytes", () => {
    const o = only("event-nduseropt-prefix", "useropt").options[0];
    expect(o).toMatchObject({ type: K.ND_OPT_PREFIX_INFORMATION });
    expect(Buffer.from((o as { raw: Uint8Array }).raw).toString("hex")).toBe("030440c000015180000038400000000020010db8000100000000000000000000");
  });

  test("a failed DAD shows as RTM_DELADDR with dadfailed|tentative", () => {
    const a = only("event-deladdr-dadfailed", "addr");
    expect(a.op).toBe("del");
    expect(a.address).toBe("2001:db8:1::ff:fe00:aa01");
    expect(a.flags & (K.IFA_F_DADFAILED | K.IFA_F_TENTATIVE)).toBe(K.IFA_F_DADFAILED | K.IFA_F_TENTATIVE);
  });

  test("an operstate UP link event and a usable-address event decode", () => {
    expect(only("event-newlink-up", "link")).toMatchObject({ operstate: K.IF_OPER_UP, mac: "02:00:00:00:aa:01" });
    expect(only("event-newaddr-global", "addr")).toMatchObject({ op: "new", address: "2001:db8:1::ff:fe00:aa01" });
    expect(only("event-newroute-default-ra", "route")).toMatchObject({ op: "new", protocol: K.RTPROT_RA, dstLen: 0 });
  });

  test("an NLMSG_ERROR answer gives the errno and the request it answers", () => {
    const [m] = decodeMessages(one("error-enodev"));
    expect(m?.body).toMatchObject({ kind: "error", errno: 19, request: { type: K.RTM_NEWLINK, flags: K.NLM_F_REQUEST | K.NLM_F_ACK } });
  });

  test("unknown attributes are kept as raw bytes", () => {
    const veth = bodies("dump-links").find((x) => x.kind === "link" && x.ifindex === 2);
    const types = (veth as unknown as { attrs: { type: number }[] }).attrs.map((a) => a.type);
    expect(types.length).toBeGreaterThan(20);
    expect(types).toContain(K.IFLA_IFNAME);
  });
});

describe("encoding requests", () => {
  test("link-up is RTM_NEWLINK with IFF_UP in flags and change, asking for an ACK (byte-exact)", () => {
    expect(Buffer.from(setLinkUpRequest(7, 2, true)).toString("hex")).toBe(
      "20000000" + "1000" + "0500" + "07000000" + "00000000" + "00000000" + "02000000" + "01000000" + "01000000",
    );
  });
  test("link and address dumps are NLM_F_REQUEST|NLM_F_DUMP with the family header", () => {
    expect(Buffer.from(dumpLinksRequest(1)).toString("hex")).toBe("20000000120001030100000000000000" + "00000000000000000000000000000000");
    expect(Buffer.from(dumpAddrsRequest(2)).toString("hex")).toBe("18000000160001030200000000000000" + "0a00000000000000");
  });
});

describe("malformed bytes", () => {
  const bad = (bytes: Uint8Array, re: RegExp) => expect(() => decodeMessages(bytes)).toThrow(re);

  test("a datagram shorter than nlmsghdr", () => bad(hexBytes("1000000010"), /nlmsghdr: needs 16 bytes/));
  test("nlmsg_len below the header size", () => bad(hexBytes("08000000100000000000000000000000"), /shorter than the 16-byte header/));
  test("nlmsg_len past the end of the datagram", () => {
    const d = one("event-newaddr-global");
    bad(d.subarray(0, d.byteLength - 4), /runs past the end/);
  });
  test("an ifaddrmsg body cut short", () => bad(hexBytes("12000000140000000000000000000000" + "0a40"), /ifaddrmsg: needs 8 bytes/));
  test("an attribute length below its header", () => bad(hexBytes("1c000000140000000000000000000000" + "0a400000" + "02000000" + "02000100"), /shorter than its header/));
  test("an attribute running past the message", () => bad(hexBytes("1c000000140000000000000000000000" + "0a400000" + "02000000" + "14000100"), /runs past the end/));
  test("an IPv6 address attribute of the wrong size", () =>
    bad(hexBytes("20000000140000000000000000000000" + "0a400000" + "02000000" + "08000100c0000201"), /16-byte IPv6 address/));
  test("an RDNSS option of length 0", () => {
    const d = one("event-nduseropt-rdnss").slice();
    d[16 + 16 + 1] = 0; // nlmsghdr + nduseroptmsg, then the option's length byte
    bad(d, /length 0/);
  });
  test("an RDNSS option whose length runs past nduseropt_opts_len", () => {
    const d = one("event-nduseropt-rdnss").slice();
    d[16 + 16 + 1] = 9;
    bad(d, /runs past the end/);
  });
  test("a DNSSL label running past the option", () => {
    const d = one("event-nduseropt-dnssl").slice();
    d[16 + 16 + 8] = 60;
    bad(d, /DNSSL: label of 60 bytes runs past|DNSSL: domain name runs past/);
  });
  test("errors are NetlinkDecodeError", () => expect(() => decodeMessages(hexBytes("01"))).toThrow(NetlinkDecodeError));
});
