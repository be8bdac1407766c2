import { describe, expect, test } from "bun:test";
import { dnsmasqArgv, parseDnsLog } from "../../lab/standins/dnsmasq.ts";

// Lines as dnsmasq 2.90 (Debian 12) writes them with --log-queries=extra --log-facility=FILE.
const LOG = `Dec  5 17:32:47 dnsmasq[3900]: using only locally-known addresses for chain.lab
Dec  5 17:32:49 dnsmasq[3900]: 1 fd00:b007:0:1::5054:ff:fe00:1/58062 query[AAAA] metal-boot.chain.lab from fd00:b007:0:1::5054:ff:fe00:1
Dec  5 17:32:49 dnsmasq[3900]: 1 fd00:b007:0:1::5054:ff:fe00:1/58062 config metal-boot.chain.lab is fd00:b007::2
Dec  5 17:32:49 dnsmasq[3900]: 2 ::1/44632 query[AAAA] nope.chain.lab from ::1
Dec  5 17:32:49 dnsmasq[3900]: 2 ::1/44632 config nope.chain.lab is NXDOMAIN
Dec  5 17:32:49 dnsmasq[3900]: 3 ::1/44260 query[AAAA] onlya.chain.lab from ::1
Dec  5 17:32:49 dnsmasq[3900]: 4 ::1/50809 query[A] onlya.chain.lab from ::1
Dec  5 17:32:49 dnsmasq[3900]: 3 ::1/44260 config onlya.chain.lab is NODATA-IPv6
Dec  5 17:32:49 dnsmasq[3900]: 5 ::1/55521 query[AAAA] example.com from ::1
Dec  5 17:32:49 dnsmasq[3900]: 5 ::1/55521 config error is REFUSED (EDE: not ready)
`;

describe("the lab's DNS server (dnsmasq)", () => {
  test("argv: authoritative for the domain, AAAA host records, no upstream, the query log in the lab's dir", () => {
    expect(
      dnsmasqArgv({
        listen: "fd00:b007::53",
        domain: "chain.lab",
        records: [
          { name: "metal-boot.chain.lab", aaaa: ["fd00:b007::2"] },
          { name: "v4.chain.lab", a: ["192.0.2.9"] },
        ],
        forward: [{ domain: "down.chain.lab", server: "fd00:b007::54" }],
        logFile: "/tmp/x/dnsmasq.log",
      }),
    ).toEqual([
      "dnsmasq",
      "--keep-in-foreground",
      "--conf-file=/dev/null",
      "--no-resolv",
      "--no-hosts",
      "--no-poll",
      "--bind-interfaces",
      "--listen-address=fd00:b007::53",
      "--port=53",
      "--user=root",
      "--group=root",
      "--pid-file=",
      "--cache-size=0",
      "--log-queries=extra",
      "--log-facility=/tmp/x/dnsmasq.log",
      "--local=/chain.lab/",
      "--host-record=metal-boot.chain.lab,fd00:b007::2",
      "--host-record=v4.chain.lab,192.0.2.9",
      "--server=/down.chain.lab/fd00:b007::54",
    ]);
  });
  test("the log: every query with its client and answer, linked by serial even when interleaved", () => {
    expect(parseDnsLog(LOG)).toEqual([
      { serial: 1, type: "AAAA", name: "metal-boot.chain.lab", from: "fd00:b007:0:1::5054:ff:fe00:1", answer: "fd00:b007::2" },
      { serial: 2, type: "AAAA", name: "nope.chain.lab", from: "::1", answer: "NXDOMAIN" },
      { serial: 3, type: "AAAA", name: "onlya.chain.lab", from: "::1", answer: "NODATA-IPv6" },
      { serial: 4, type: "A", name: "onlya.chain.lab", from: "::1", answer: undefined },
      { serial: 5, type: "AAAA", name: "example.com", from: "::1", answer: "REFUSED" },
    ]);
  });
});
