/**
 * The agent's resolver against the lab's real DNS server (dnsmasq, lab/standins/dnsmasq.ts) in a
 * network namespace, as on the boot network: the right name, a misconfigured zone (a
 * typo: NXDOMAIN; an IPv4-only entry: only A records), a sub-domain whose upstream is
 * down (REFUSED), and the server stopped (its port closed). The server's query log shows
 * each AAAA query with its answer. Root; about 2 s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLabDns, type LabDns } from "../../../lab/standins/dnsmasq.ts";
import { NetnsRig } from "../../../lab/rig/rig.ts";
import { canRunNetns, suffix } from "../../helpers/netns.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const DNS = "fd00:b007::53";
const ready = prerequisites("resolver against dnsmasq in a namespace", [
  canRunNetns(),
  Bun.which("dnsmasq", { PATH: "/usr/sbin:/usr/bin" }) ? undefined : "dnsmasq (package dnsmasq-base)",
]);

let rig: NetnsRig;
let dns: LabDns;
let dir = "";

type Out = { addresses?: string[]; failure?: string; code?: string; exit?: number; message?: string; ms: number };
function resolve(name: string, server = DNS): Out {
  const r = Bun.spawnSync(rig.exec([process.execPath, join(import.meta.dir, "../../helpers/resolve-in-ns.ts"), name, server]), { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`resolve-in-ns ${name}: exit ${r.exitCode}: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as Out;
}

describe.if(ready)("resolver against dnsmasq in a namespace", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mhd-dns-"));
    rig = NetnsRig.create(`mhd-${suffix()}`, dir);
    rig.addLoopback(DNS);
    dns = await startLabDns(
      {
        listen: DNS,
        domain: "chain.lab",
        records: [
          { name: "metal-boot.chain.lab", aaaa: ["fd00:b007::1"] },
          // The misconfigured entry: an IPv4 address only, in an IPv6-only boot network.
          { name: "images.chain.lab", a: ["192.0.2.9"] },
        ],
        forward: [{ domain: "upstream-down.chain.lab", server: "fd00:b007::54" }],
        logFile: join(dir, "dnsmasq.log"),
      },
      (argv) => rig.spawn("dnsmasq", argv, { stdout: "ignore", stderr: "pipe" }),
    );
  });
  afterAll(async () => {
    await rig?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the name in the zone: its AAAA address, and the query in the server's log", () => {
    expect(resolve("metal-boot.chain.lab").addresses).toEqual(["fd00:b007::1"]);
    expect(dns.queries().filter((q) => q.name === "metal-boot.chain.lab")).toEqual([expect.objectContaining({ type: "AAAA", answer: "fd00:b007::1" })]);
  });
  test("a name missing from the zone: NXDOMAIN, exit 16", () => {
    const r = resolve("metal-bot.chain.lab");
    expect([r.failure, r.code, r.exit]).toEqual(["nxdomain", "dns_name", 16]);
    expect(r.message).toBe(`metal-bot.chain.lab: no such name (NXDOMAIN from DNS server ${DNS})`);
  });
  test("a name with only an A record: only_a, exit 16; the log shows the AAAA and then the A query", () => {
    const r = resolve("images.chain.lab");
    expect([r.failure, r.exit]).toEqual(["only_a", 16]);
    expect(
      dns
        .queries()
        .filter((q) => q.name === "images.chain.lab")
        .map((q) => `${q.type} ${q.answer}`),
    ).toEqual(["AAAA NODATA-IPv6", "A 192.0.2.9"]);
  });
  test("a sub-domain whose upstream is down: REFUSED, exit 17", () => {
    const r = resolve("x.upstream-down.chain.lab");
    expect([r.failure, r.code, r.exit]).toEqual(["refused", "dns_server", 17]);
  });
  test("a server address the namespace has no route to: unreachable, exit 17, at once, not a wait for silence", () => {
    const r = resolve("metal-boot.chain.lab", "fd00:dead::53");
    expect([r.failure, r.exit]).toEqual(["unreachable", 17]);
    expect(r.message).toContain("fd00:dead::53: unreachable (no route to it");
    expect(r.ms).toBeLessThan(500);
  });
  test("the server stopped: not_listening, exit 17, at once", async () => {
    await rig.stop(dns.proc.pid);
    const r = resolve("metal-boot.chain.lab");
    expect([r.failure, r.exit]).toEqual(["not_listening", 17]);
    expect(r.ms).toBeLessThan(500);
  });
});
