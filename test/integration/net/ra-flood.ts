/**
 * Run inside a router namespace by operator.test.ts: a flood of router
 * advertisements on one interface, each with the lab prefix (SLAAC), a default
 * router lifetime and a *new* RDNSS server, sent over AF_PACKET from the router's
 * link-local address to ff02::1.
 *   bun ra-flood.ts <ifname> <router link-local> <router mac> <count> <per-second>
 * Prints {"sent": n} when done.
 */
import ipaddr from "ipaddr.js";
import { readFileSync } from "node:fs";
import { AF_PACKET } from "../../../src/network/netlink/constants.ts";
import { icmpv6Checksum } from "../../../src/network/net/rs-frame.ts";
import { libc, SOCK_CLOEXEC, SOCK_DGRAM } from "../../../src/platform/sys/libc.ts";

const [ifname = "", src = "", mac = "", countArg = "1000", rateArg = "1000"] = process.argv.slice(2);
const ALL_NODES = ipaddr.parse("ff02::1").toByteArray();
const SRC = ipaddr.parse(src).toByteArray();
const MAC = mac.split(":").map((x) => parseInt(x, 16));
const ETH_P_IPV6 = 0x86dd;
const htons = (v: number) => ((v & 0xff) << 8) | (v >> 8);

function ra(i: number): Uint8Array {
  const prefix = ipaddr.parse("2001:db8:1::").toByteArray();
  const server = ipaddr.parse(`2001:db8:99::${(i % 0xffff) + 1}`.replace(/::(\d+)$/, (_m, n: string) => `::${Number(n).toString(16)}`)).toByteArray();
  const icmp = new Uint8Array(16 + 8 + 32 + 24);
  const dv = new DataView(icmp.buffer);
  icmp[0] = 134; // Router Advertisement
  icmp[4] = 64; // cur hop limit
  dv.setUint16(6, 1800); // router lifetime
  let o = 16;
  icmp[o] = 1; // source link-layer address
  icmp[o + 1] = 1;
  icmp.set(MAC, o + 2);
  o += 8;
  icmp[o] = 3; // prefix information
  icmp[o + 1] = 4;
  icmp[o + 2] = 64;
  icmp[o + 3] = 0xc0; // on-link, autonomous
  dv.setUint32(o + 4, 86400);
  dv.setUint32(o + 8, 14400);
  icmp.set(prefix, o + 16);
  o += 32;
  icmp[o] = 25; // RDNSS, one server
  icmp[o + 1] = 3;
  dv.setUint32(o + 4, 600);
  icmp.set(server, o + 8);
  const ck = icmpv6Checksum(new Uint8Array(SRC), new Uint8Array(ALL_NODES), icmp);
  dv.setUint16(2, ck);
  const pkt = new Uint8Array(40 + icmp.byteLength);
  pkt[0] = 0x60;
  new DataView(pkt.buffer).setUint16(4, icmp.byteLength);
  pkt[6] = 58;
  pkt[7] = 255;
  pkt.set(SRC, 8);
  pkt.set(ALL_NODES, 24);
  pkt.set(icmp, 40);
  return pkt;
}

const c = libc();
const fd = c.socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IPV6));
if (fd < 0) throw new Error(`socket: errno ${c.errno()}`);
const sll = new Uint8Array(20);
const sdv = new DataView(sll.buffer);
sdv.setUint16(0, AF_PACKET, true);
sdv.setUint16(2, htons(ETH_P_IPV6), true);
sdv.setInt32(4, Number(readFileSync(`/sys/class/net/${ifname}/ifindex`, "utf8").trim()), true);
sll[11] = 6;
sll.set([0x33, 0x33, 0, 0, 0, 1], 12);
const count = Number(countArg);
const perSecond = Number(rateArg);
const t0 = performance.now();
let sent = 0;
for (let i = 0; i < count; i++) {
  const p = ra(i);
  if (c.sendto(fd, p, p.byteLength, 0, sll, sll.byteLength) >= 0) sent++;
  // Paced, so the flood stays inside this namespace's share of a shared machine.
  const due = t0 + ((i + 1) * 1000) / perSecond;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
}
c.close(fd);
console.log(JSON.stringify({ sent }));
