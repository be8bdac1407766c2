/**
 * The loop's shell (src/network/net/loop.ts) with a scripted event source and netlink socket:
 * a long `net watch` (a stop promise that stays pending) must not keep what it has
 * handled. Racing the pending stop promise on every turn left one reaction per turn on
 * it, each holding that turn's event: 15 MB/s under an RA flood (measured: 516 MB after
 * 31 s; now flat at ~100-114 MB, the binary's own).
 */
import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import type { EventSource, SourceEvent } from "../../../src/network/netlink/event-source.ts";
import type { NetlinkSocket } from "../../../src/network/netlink/socket.ts";
import { clock, runLoop } from "../../../src/network/net/loop.ts";
import { initialState } from "../../../src/network/net/reducer.ts";
import { droppingOutput } from "../../../src/network/net/watch.ts";

const EVENTS = 4000;
const PAYLOAD = 32 << 10; // per event: 125 MiB in all if every handled event were kept

function scriptedSource(): EventSource {
  let i = 0;
  const it: AsyncIterator<SourceEvent> = {
    next: async () => {
      if (i++ >= EVENTS) return { done: true, value: undefined };
      // A link event of an interface outside the selection, carrying a large buffer.
      const body = { kind: "link", op: "new", ifindex: 4242, name: "other0", flags: 0, pad: new Uint8Array(PAYLOAD) };
      return { done: false, value: { kind: "events", t: clock(), bodies: [body] } as unknown as SourceEvent };
    },
  };
  return { [Symbol.asyncIterator]: () => it } as unknown as EventSource;
}

const rq = { dumpLinks: () => [], dumpAddrs: () => [], dumpRoutes: () => [], setLinkUp: () => {} } as unknown as NetlinkSocket;

describe("runLoop", () => {
  test("a watch with a pending stop keeps nothing of the events it handled (heap after GC)", async () => {
    Bun.gc(true);
    const before = heapStats().heapSize;
    const stop = new Promise<void>(() => {}); // Ctrl-C never comes
    const t0 = clock();
    const r = await runLoop(
      scriptedSource(),
      initialState([], t0),
      { mode: "watch", policy: "any", dnsNeeded: false, solicit: false, resolvConf: undefined, deadline: Infinity, carrierGraceMs: Infinity },
      {
        rq,
        log: createLogger({ level: "silent", format: "json", write: () => true, secrets: new SecretSet() }),
        stop,
      },
    );
    expect(r.verdict.kind).toBe("end");
    Bun.gc(true);
    const grown = heapStats().heapSize - before;
    expect(grown).toBeLessThan(16 << 20);
    void stop; // held until here, as the CLI holds its SIGINT promise
  });

  test("stop ends the loop while it waits for events", async () => {
    let end = () => {};
    const stop = new Promise<void>((res) => (end = res));
    const idle = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<SourceEvent>>(() => {}) }) } as unknown as EventSource;
    const t0 = clock();
    const running = runLoop(
      idle,
      initialState([], t0),
      { mode: "watch", policy: "any", dnsNeeded: false, solicit: false, resolvConf: undefined, deadline: Infinity, carrierGraceMs: Infinity },
      {
        rq,
        log: createLogger({ level: "silent", format: "json", write: () => true, secrets: new SecretSet() }),
        stop,
      },
    );
    setTimeout(end, 50);
    const r = await running;
    expect(r.verdict.kind).toBe("end");
    expect(clock() - t0).toBeLessThan(1000);
  });
});

describe("net watch output to a reader that does not keep up", () => {
  test("refused lines are counted; the count is printed before the next line that fits; the total is kept", () => {
    const got: string[] = [];
    let open = true;
    const out = droppingOutput((l) => (open ? (got.push(l), true) : false));
    const notice = (n: number) => `dropped ${n}`;
    out.line("a", notice);
    open = false;
    out.line("b", notice);
    out.line("c", notice);
    open = true;
    out.line("d", notice);
    out.line("e", notice);
    expect(got).toEqual(["a", "dropped 2", "d", "e"]);
    expect(out.total()).toBe(2);
  });

  test("a refused notice counts the line it preceded too", () => {
    const got: string[] = [];
    const verdicts = [true, false, false, true, true];
    const out = droppingOutput((l) => {
      const ok = verdicts.shift() ?? true;
      if (ok) got.push(l);
      return ok;
    });
    const notice = (n: number) => `dropped ${n}`;
    for (const l of ["a", "b", "c", "d"]) out.line(l, notice);
    // a ok; b refused; notice(1) refused -> c counted; notice(2) ok, d ok
    expect(got).toEqual(["a", "dropped 2", "d"]);
    expect(out.total()).toBe(2);
  });
});
