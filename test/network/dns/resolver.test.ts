/**
 * The resolver against DNS servers on the loopback that answer what each case needs
 * (no root): every failure named, with its exit code, within its bound.
 */
import { afterEach, describe, expect, test } from "bun:test";
import dgram from "node:dgram";
import { DnsError } from "../../../src/network/dns/dns-error.ts";
import { Resolver } from "../../../src/network/dns/resolver.ts";
import { exitCodeFor } from "../../../src/platform/exit-codes.ts";

type Reply = { rcode?: number; aaaa?: string[]; a?: number } | "silent" | "stray";

/** A response to `q` (the query's own bytes as header + question). */
function respond(q: Buffer, r: Exclude<Reply, "silent" | "stray">): Buffer {
  const out = Buffer.from(q);
  out[2] = 0x85;
  out[3] = 0x80 | (r.rcode ?? 0);
  const rrs: Buffer[] = [];
  for (const addr of r.aaaa ?? []) {
    const rr = Buffer.alloc(28);
    rr.writeUInt16BE(0xc00c, 0);
    rr.writeUInt16BE(28, 2);
    rr.writeUInt16BE(1, 4);
    rr.writeUInt16BE(16, 10);
    const groups = addr === "fd00:b007::1" ? [0xfd00, 0xb007, 0, 0, 0, 0, 0, 1] : [0xfd00, 0, 0, 0, 0, 0, 0, 2];
    groups.forEach((g, i) => rr.writeUInt16BE(g, 12 + 2 * i));
    rrs.push(rr);
  }
  for (let i = 0; i < (r.a ?? 0); i++) rrs.push(Buffer.from("c00c00010001000000000004c0000209", "hex"));
  out.writeUInt16BE(rrs.length, 6);
  return Buffer.concat([out, ...rrs]);
}

const sockets: dgram.Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

/** A server on `addr` (port 0: any) answering by query type; returns its port and the queries it got. */
async function server(type: "udp6" | "udp4", addr: string, port: number, reply: (qtype: number) => Reply): Promise<{ port: number; got: number[] }> {
  const s = dgram.createSocket({ type, ...(type === "udp6" ? { ipv6Only: true } : {}) });
  sockets.push(s);
  const got: number[] = [];
  s.on("message", (m, rinfo) => {
    const qtype = m.readUInt16BE(m.byteLength - 4);
    got.push(qtype);
    const r = reply(qtype);
    if (r === "silent") return;
    if (r === "stray") {
      const wrong = respond(m, { aaaa: ["fd00::2"] });
      wrong.writeUInt16BE((m.readUInt16BE(0) + 1) & 0xffff, 0);
      s.send(wrong, rinfo.port, rinfo.address);
      s.send(respond(m, { aaaa: ["fd00:b007::1"] }), rinfo.port, rinfo.address);
      return;
    }
    s.send(respond(m, r), rinfo.port, rinfo.address);
  });
  await new Promise<void>((res) => s.bind(port, addr, () => res()));
  return { port: s.address().port, got };
}

const resolver = (servers: string[], port: number) => new Resolver({ servers: () => servers, port, timeoutMs: 100, tries: 2 });

async function failure(p: Promise<unknown>): Promise<DnsError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DnsError) return e;
    throw e;
  }
  throw new Error("expected a DnsError");
}

describe("resolver: AAAA over UDP to the RAs' servers", () => {
  test("an AAAA answer gives the address; no A query is sent", async () => {
    const s = await server("udp6", "::1", 0, () => ({ aaaa: ["fd00:b007::1"] }));
    expect(await resolver(["::1"], s.port).aaaa("metal-boot.chain.lab")).toEqual(["fd00:b007::1"]);
    expect(s.got).toEqual([28]);
  });
  test("IP literals and localhost are not asked", async () => {
    const r = resolver([], 9);
    expect(await r.aaaa("[fd00::1]")).toEqual(["fd00::1"]);
    expect(await r.aaaa("localhost")).toEqual(["::1"]);
  });
  test("a stray datagram (another id) is ignored, the real answer taken", async () => {
    const s = await server("udp6", "::1", 0, () => "stray");
    expect(await resolver(["::1"], s.port).aaaa("metal-boot.chain.lab")).toEqual(["fd00:b007::1"]);
  });
  test("NXDOMAIN: dns_name (exit 16), final (no second server asked)", async () => {
    const s = await server("udp6", "::1", 0, () => ({ rcode: 3 }));
    const e = await failure(resolver(["::1", "::ffff:127.0.0.1"], s.port).aaaa("nope.chain.lab"));
    expect([e.failure, e.code, e.exitCode, e.retryable]).toEqual(["nxdomain", "dns_name", exitCodeFor("dns_name"), true]);
    expect(e.exitCode).toBe(16);
    expect(e.message).toBe("nope.chain.lab: no such name (NXDOMAIN from DNS server [::1]:" + s.port + ")");
  });
  test("no AAAA but A records: only_a; no records at all: nodata", async () => {
    const a = await server("udp6", "::1", 0, (t) => (t === 1 ? { a: 1 } : {}));
    const e = await failure(resolver(["::1"], a.port).aaaa("v4.chain.lab"));
    expect([e.failure, e.exitCode]).toEqual(["only_a", 16]);
    expect(a.got).toEqual([28, 1]);
    const n = await server("udp6", "::1", 0, () => ({}));
    expect((await failure(resolver(["::1"], n.port).aaaa("empty.chain.lab"))).failure).toBe("nodata");
  });
  test("SERVFAIL: dns_server (exit 17); the next server is asked and may answer", async () => {
    const sf = await server("udp6", "::1", 0, () => ({ rcode: 2 }));
    const e = await failure(resolver(["::1"], sf.port).aaaa("x.chain.lab"));
    expect([e.failure, e.exitCode]).toEqual(["servfail", 17]);
    const ok = await server("udp4", "127.0.0.1", sf.port, () => ({ aaaa: ["fd00:b007::1"] }));
    expect(await resolver(["::1", "::ffff:127.0.0.1"], sf.port).aaaa("x.chain.lab")).toEqual(["fd00:b007::1"]);
    expect(ok.got).toEqual([28]);
  });
  test("a silent server: dns_server 'silent' after tries x timeout, not longer", async () => {
    const s = await server("udp6", "::1", 0, () => "silent");
    const t0 = performance.now();
    const e = await failure(resolver(["::1"], s.port).aaaa("x.chain.lab"));
    const ms = performance.now() - t0;
    expect([e.failure, e.exitCode]).toEqual(["silent", 17]);
    expect(s.got).toEqual([28, 28]);
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(1_000);
    expect(e.message).toContain("silent (no answer to 2 × 100 ms)");
  });
  test("a closed port (ICMP port unreachable): not_listening at once", async () => {
    const s = await server("udp6", "::1", 0, () => "silent");
    const port = s.port;
    for (const x of sockets.splice(0)) x.close();
    const t0 = performance.now();
    const e = await failure(resolver(["::1"], port).aaaa("x.chain.lab"));
    expect([e.failure, e.exitCode]).toEqual(["not_listening", 17]);
    expect(performance.now() - t0).toBeLessThan(90);
  });
  test("no server from the RAs: no_server", async () => {
    const e = await failure(resolver([], 53).aaaa("x.chain.lab"));
    expect([e.failure, e.exitCode]).toEqual(["no_server", 17]);
    expect(e.message).toBe("cannot resolve x.chain.lab: no DNS server from the router advertisements (RDNSS)");
  });
});
