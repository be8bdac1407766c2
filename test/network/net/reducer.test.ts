/**
 * Every decision of bring-up, without root: the reducer replays sequences recorded
 * from the kernel with `net up --record` (test/fixtures/net/*.jsonl, re-recorded by
 * test/fixtures/net/record.ts), plus short sequences built from decoded messages
 * (feed.ts) for what a lab cannot produce on demand (floods, write failures).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as K from "../../../src/network/netlink/constants.ts";
import type { Body } from "../../../src/network/netlink/message.ts";
import { decodeRecording } from "../../../src/network/net/record.ts";
import type { LinkFacts } from "../../../src/network/net/select.ts";
import {
  DNS_MIN_INTERVAL_MS,
  initialState,
  LOG_REPEAT_MS,
  reduce,
  RS_RETRY_MS,
  type CoreOptions,
  type Effect,
  type Input,
  type LogRecord,
  type Verdict,
} from "../../../src/network/net/reducer.ts";
import { addr, defaultRoute, IDX, link, rdnss, UP, UP_CARRIER } from "./feed.ts";

interface Replay {
  readonly logs: (LogRecord & { t: number })[];
  readonly effects: (Effect & { t: number })[];
  readonly verdict: Verdict;
  readonly t0: number;
  readonly wakeAts: { t: number; wakeAt: number }[];
}

const ETH0: LinkFacts = { ifindex: IDX, name: "eth0", mac: "02:00:00:00:aa:01", flags: 0, kind: undefined };

function replay(inputs: readonly Input[], options: CoreOptions, selected: LinkFacts[] = [ETH0], t0 = 0): Replay {
  const s = initialState(selected, t0);
  const logs: Replay["logs"] = [];
  const effects: Replay["effects"] = [];
  const wakeAts: Replay["wakeAts"] = [];
  let verdict: Verdict = { kind: "wait" };
  for (const input of inputs) {
    const out = reduce(s, options, input);
    logs.push(...out.logs.map((l) => ({ ...l, t: input.t })));
    effects.push(...out.effects.map((e) => ({ ...e, t: input.t })));
    wakeAts.push({ t: input.t, wakeAt: out.wakeAt });
    verdict = out.verdict;
  }
  return { logs, effects, verdict, t0, wakeAts };
}

function recorded(name: string, override: Partial<CoreOptions> = {}): Replay & { selected: LinkFacts[]; inputs: Input[] } {
  const { head, inputs } = decodeRecording(readFileSync(join(import.meta.dir, "../../fixtures/net", `${name}.jsonl`), "utf8"));
  return { ...replay(inputs, { ...head.options, ...override }, [...head.selected], head.t0), selected: [...head.selected], inputs };
}

const events = (r: Replay, name: string) => r.logs.filter((l) => l.event === name);
const kinds = (r: Replay, kind: Effect["kind"]) => r.effects.filter((e) => e.kind === kind);
const UP_OPTS: CoreOptions = { mode: "up", policy: "any", dnsNeeded: false, solicit: true, resolvConf: "/run/test/resolv.conf", deadline: 60_000, carrierGraceMs: 10_000 };
const GUA = "2001:db8:1::ff:fe00:aa01";
const dump = (t: number, ...bodies: Body[]): Input => ({ kind: "dump", t, what: "all", bodies });
const ev = (t: number, ...bodies: Body[]): Input => ({ kind: "events", t, bodies });

describe("bring-up reducer, replaying a recorded SLAAC bring-up (veth + radvd, stock DAD)", () => {
  const r = recorded("slaac-rs");
  const name = r.selected[0]?.name ?? "";

  test("the link is set up once, after the first full dump, and nothing else is touched", () => {
    expect(kinds(r, "link-up").map((e) => (e.kind === "link-up" ? e.ifindex : -1))).toEqual([r.selected[0]?.ifindex ?? 0]);
    expect(r.effects[0]).toMatchObject({ kind: "link-up" });
    expect(kinds(r, "prepare")).toEqual([]);
  });

  test("our own RS goes out when the link reaches operstate UP, once: the RA came before the retry was due", () => {
    const rs = kinds(r, "solicit");
    expect(rs.map((e) => (e.kind === "solicit" ? e.attempt : 0))).toEqual([1]);
    const ifindex = r.selected[0]?.ifindex;
    const operUp = r.inputs.find(
      (i) => i.kind === "events" && i.bodies.some((b) => b.kind === "link" && b.ifindex === ifindex && b.family !== K.AF_INET6 && b.operstate === K.IF_OPER_UP),
    );
    expect(rs[0]?.t).toBe(operUp?.t as number);
  });

  test("addresses are dumped when the RA shows up (the kernel does not announce the tentative SLAAC address)", () => {
    const ra = events(r, "net.ra.seen")[0];
    const dumps = kinds(r, "dump");
    expect(dumps.length).toBeGreaterThan(0);
    expect(dumps.every((d) => d.kind === "dump" && d.what === "addrs")).toBe(true);
    expect(dumps[0]?.t).toBe(ra?.t as number);
    expect(events(r, "net.addr.tentative")[0]?.fields.address).toBe(`${GUA}/64`);
  });

  test("resolv.conf is written when RA DNS arrives, with both servers and both search domains, and again only after a second has passed", () => {
    const w = kinds(r, "write-dns");
    expect(w.length).toBeGreaterThanOrEqual(1);
    const last = w[w.length - 1];
    expect(last?.kind === "write-dns" && last.text).toContain("nameserver 2001:db8:1::53\nnameserver 2001:db8:1::54\nsearch lab.example corp.example\n");
    for (let i = 1; i < w.length; i++) expect((w[i]?.t ?? 0) - (w[i - 1]?.t ?? 0)).toBeGreaterThanOrEqual(DNS_MIN_INTERVAL_MS);
  });

  test("ready when the global address leaves tentative, within 15% of one DAD retransmission (1 s) after link-up", () => {
    expect(r.verdict.kind).toBe("ready");
    const ready = r.verdict.kind === "ready" ? r.verdict : undefined;
    expect(ready?.ready).toEqual([name]);
    const done = events(r, "net.dad.done")[0];
    expect(ready?.t).toBe(done?.t as number);
    const linkUp = events(r, "net.link.up")[0]?.t ?? 0;
    expect((ready?.t ?? 0) - linkUp).toBeLessThanOrEqual(1150);
    expect(events(r, "net.ready")).toHaveLength(1);
  });

  test("without --solicit nothing is sent; the same events still end ready", () => {
    const q = recorded("slaac-rs", { solicit: false });
    expect(kinds(q, "solicit")).toEqual([]);
    expect(q.verdict.kind).toBe("ready");
  });

  test("net watch (mode watch) over the same events: no link change, no RS, no verdict; resolv.conf still kept", () => {
    const w = recorded("slaac-rs", { mode: "watch", deadline: Infinity });
    expect(kinds(w, "link-up")).toEqual([]);
    expect(kinds(w, "solicit")).toEqual([]);
    expect(w.verdict.kind).toBe("wait");
    expect(kinds(w, "write-dns").length).toBeGreaterThan(0);
    expect(events(w, "net.wait")).toEqual([]);
  });

  test("the reducer never asks to be woken in the past", () => {
    for (const x of r.wakeAts) expect(x.wakeAt).toBeGreaterThan(x.t);
  });
});

describe("bring-up reducer, replaying recorded failures", () => {
  test("DAD failure (the router holds our address): fail with dad_failed naming the address", () => {
    const r = recorded("dad-failed");
    expect(r.verdict).toMatchObject({ kind: "fail", code: "dad_failed" });
    expect(r.verdict.kind === "fail" && r.verdict.message).toContain(`duplicate address ${GUA} (DAD failed)`);
  });

  test("an interface deleted and re-created with the same name is followed to its new ifindex: sysctls and link up again, a new RS, ready", () => {
    const r = recorded("recreated");
    const old = r.selected[0]?.ifindex ?? 0;
    const gone = events(r, "net.link.gone");
    const again = events(r, "net.link.recreated");
    expect(gone.map((g) => g.fields.ifindex)).toEqual([old]);
    expect(again).toHaveLength(1);
    const now = again[0]?.fields.ifindex as number;
    expect(now).not.toBe(old);
    expect(again[0]?.fields.was).toBe(old);
    expect(kinds(r, "prepare")).toEqual([{ kind: "prepare", ifindex: now, name: r.selected[0]?.name ?? "", t: again[0]?.t ?? 0 }]);
    expect(kinds(r, "solicit").filter((e) => e.kind === "solicit" && e.ifindex === now && e.attempt === 1)).toHaveLength(1);
    expect(r.verdict).toMatchObject({ kind: "ready", ready: [r.selected[0]?.name] });
  });

  test("an interface deleted for good: 'interface disappeared' after the carrier grace, exit code no_interface", () => {
    const r = recorded("gone");
    expect(events(r, "net.link.gone")).toHaveLength(1);
    expect(r.verdict).toMatchObject({ kind: "fail", code: "no_interface" });
    expect(r.verdict.kind === "fail" && r.verdict.message).toContain("interface disappeared");
    const goneAt = events(r, "net.link.gone")[0]?.t ?? 0;
    const nocarrier = events(r, "net.link.nocarrier")[0];
    expect((nocarrier?.t ?? 0) - goneAt).toBeGreaterThanOrEqual(3000);
  });
});

describe("bring-up reducer, built sequences", () => {
  const startUp = [dump(0, link(0)), ev(5, link(UP_CARRIER))];

  test("no RA after the first RS: a second one RS_RETRY_MS later, then none", () => {
    const r = replay([...startUp, { kind: "tick", t: 5 + RS_RETRY_MS - 1 }, { kind: "tick", t: 5 + RS_RETRY_MS }, { kind: "tick", t: 5 + 3 * RS_RETRY_MS }], UP_OPTS);
    expect(kinds(r, "solicit").map((e) => [e.t, e.kind === "solicit" && e.attempt])).toEqual([
      [5, 1],
      [5 + RS_RETRY_MS, 2],
    ]);
  });

  test("the RS retry is asked for by wakeAt, not left to the 200 ms tick", () => {
    const r = replay([...startUp, { kind: "tick", t: 205 }], UP_OPTS);
    expect(r.wakeAts[2]?.wakeAt).toBe(5 + RS_RETRY_MS);
  });

  test("a link already up at start is not set up again; with no RA known yet our RS goes out at once", () => {
    const r = replay([dump(0, link(UP_CARRIER))], UP_OPTS);
    expect(kinds(r, "link-up")).toEqual([]);
    expect(kinds(r, "solicit").map((e) => e.t)).toEqual([0]);
  });

  test("an overrun (ENOBUFS) re-dumps everything; the dump replaces the facts (an address gone meanwhile is forgotten)", () => {
    const s = initialState([ETH0], 0);
    reduce(s, UP_OPTS, dump(0, link(UP_CARRIER), addr(GUA, K.IFA_F_TENTATIVE)));
    const out = reduce(s, UP_OPTS, { kind: "overrun", t: 10 });
    expect(out.effects).toEqual([{ kind: "dump", what: "all" }]);
    expect(out.logs.map((l) => l.event)).toEqual(["net.overrun"]);
    reduce(s, UP_OPTS, dump(20, link(UP_CARRIER)));
    expect(s.machines[0]?.addrs.size).toBe(0);
  });

  test("an RA flood with a new RDNSS server in every RA: at most 3 servers kept, net.dns at most once a second (with a count), resolv.conf at most once a second", () => {
    const inputs: Input[] = [...startUp, ev(10, defaultRoute("fe80::1"), addr(GUA, 0))];
    for (let i = 0; i < 1000; i++) inputs.push(ev(20 + i * 3, rdnss([`2001:db8::${(i + 1).toString(16)}`], 600)));
    for (let t = 3020; t <= 5000; t += 200) inputs.push({ kind: "tick", t });
    const s = initialState([ETH0], 0);
    const logs: LogRecord[] = [];
    const writes: { t: number; text: string }[] = [];
    for (const i of inputs) {
      const out = reduce(s, { ...UP_OPTS, mode: "watch", deadline: Infinity }, i);
      logs.push(...out.logs);
      for (const e of out.effects) if (e.kind === "write-dns") writes.push({ t: i.t, text: e.text });
    }
    expect(s.machines[0]?.dnsServers.size).toBe(3);
    const dns = logs.filter((l) => l.event === "net.dns");
    expect(dns.length).toBeLessThanOrEqual(5); // ~3 s of flood
    expect(dns.length).toBeGreaterThanOrEqual(2);
    expect(dns.some((l) => (l.fields.repeated as number) > 100)).toBe(true);
    expect(Math.max(...dns.map((l) => (l.fields.servers as string[]).length))).toBe(3);
    for (let i = 1; i < writes.length; i++) expect((writes[i]?.t ?? 0) - (writes[i - 1]?.t ?? 0)).toBeGreaterThanOrEqual(DNS_MIN_INTERVAL_MS);
    expect(writes.length).toBeLessThanOrEqual(5);
    // The last servers of the flood end up in the file once the window is over.
    expect(writes[writes.length - 1]?.text).toContain("nameserver 2001:db8::3e8");
  });

  test("a held-back line goes out when its window ends, even with no new event", () => {
    const s = initialState([ETH0], 0);
    reduce(s, UP_OPTS, dump(0, link(UP_CARRIER)));
    expect(reduce(s, UP_OPTS, ev(10, rdnss(["2001:db8::1"], 600))).logs.map((l) => l.event)).toContain("net.dns");
    const held = reduce(s, UP_OPTS, ev(20, rdnss(["2001:db8::2"], 600)));
    expect(held.logs.filter((l) => l.event === "net.dns")).toEqual([]);
    expect(reduce(s, UP_OPTS, { kind: "tick", t: 220 }).logs.filter((l) => l.event === "net.dns")).toEqual([]);
    const flushed = reduce(s, UP_OPTS, { kind: "tick", t: 10 + LOG_REPEAT_MS });
    expect(flushed.logs.filter((l) => l.event === "net.dns").map((l) => [l.fields.servers, l.fields.repeated])).toEqual([[["2001:db8::1", "2001:db8::2"], 1]]);
  });

  const dnsReady = [...startUp, ev(10, defaultRoute("fe80::1"), addr(GUA, 0), rdnss(["2001:db8::53"], 600))];
  const failed: Input = {
    kind: "dns-written",
    t: 11,
    path: "/etc/resolv.conf",
    outcome: {
      ok: false,
      reason:
        "/etc/resolv.conf is a symlink to ../run/systemd/resolve/stub-resolv.conf (another resolver manages it): left alone; --resolv-conf ../run/systemd/resolve/stub-resolv.conf writes there",
    },
  };

  test("resolv.conf not written, DNS not required: a warning naming the path, and ready", () => {
    const r = replay([...dnsReady, failed], UP_OPTS);
    expect(r.verdict.kind).toBe("ready");
    const w = events(r, "net.dns.write");
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ level: "warn", fields: { path: "/etc/resolv.conf" } });
    expect(w[0]?.msg).toContain("symlink to ../run/systemd/resolve/stub-resolv.conf");
  });

  test("resolv.conf not written, DNS required (--need-dns): fail with dns_write (exit 15), never netlink (13)", () => {
    // The RDNSS makes the interface ready and asks for the write in the same step; its outcome still decides.
    const r = replay([...startUp, ev(10, defaultRoute("fe80::1"), addr(GUA, 0)), ev(12, rdnss(["2001:db8::53"], 600)), { ...failed, t: 13 }], { ...UP_OPTS, dnsNeeded: true });
    expect(r.verdict).toMatchObject({ kind: "fail", code: "dns_write" });
    const q = replay([...startUp, ev(10, defaultRoute("fe80::1")), ev(12, rdnss(["2001:db8::53"], 600)), { ...failed, t: 13 }], { ...UP_OPTS, dnsNeeded: true });
    expect(q.verdict).toMatchObject({ kind: "fail", code: "dns_write" });
    expect(q.verdict.kind === "fail" && q.verdict.message).toContain("/etc/resolv.conf is a symlink");
  });

  test("no carrier: net.link.nocarrier once after the grace, then no_carrier", () => {
    const r = replay([dump(0, link(0)), ev(5, link(UP)), { kind: "tick", t: 9_999 }, { kind: "tick", t: 10_000 }, { kind: "tick", t: 10_200 }], UP_OPTS);
    expect(events(r, "net.link.nocarrier").map((l) => l.t)).toEqual([10_000]);
    expect(r.verdict).toMatchObject({ kind: "fail", code: "no_carrier" });
  });

  test("the deadline: fail net_timeout naming the step; watch mode ends instead", () => {
    const r = replay([...startUp, { kind: "tick", t: 60_000 }], UP_OPTS);
    expect(r.verdict).toMatchObject({ kind: "fail", code: "net_timeout" });
    expect(r.verdict.kind === "fail" && r.verdict.reasons).toEqual(["eth0: no router advertisement after 60s (link-local address still tentative)"]);
    const w = replay([...startUp, { kind: "tick", t: 3000 }], { ...UP_OPTS, mode: "watch", deadline: 3000 });
    expect(w.verdict).toEqual({ kind: "end" });
  });

  test("after the verdict, further input changes nothing", () => {
    const s = initialState([ETH0], 0);
    for (const i of [...dnsReady]) reduce(s, UP_OPTS, i);
    const out = reduce(s, UP_OPTS, ev(100, link(UP)));
    expect(out).toMatchObject({ logs: [], effects: [], verdict: { kind: "ready" } });
  });

  test("watch mode: only bodies of selected interfaces are relevant", () => {
    const s = initialState([ETH0], 0);
    const out = reduce(s, { ...UP_OPTS, mode: "watch", deadline: Infinity }, ev(1, link(UP, { ifindex: 9, name: "other" }), addr(GUA, 0)));
    expect(out.relevant.map((b) => b.kind)).toEqual(["addr"]);
  });
});
