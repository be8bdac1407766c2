/** UplinkConnector over a fake undici connector: which connections it closes when connections move to another uplink. */
import { EventEmitter } from "node:events";
import { describe, expect, test } from "bun:test";
import type { buildConnector } from "undici/index.js";
import { UplinkConnector } from "../../../src/clients/http/uplink-connect.ts";
import { isRetryableStreamFailure } from "../../../src/clients/http/classify.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

class FakeSocket extends EventEmitter {
  destroyed = false;
  error: unknown;
  constructor(readonly localAddress: string) {
    super();
  }
  destroy(e?: unknown): this {
    this.destroyed = true;
    this.error = e;
    this.emit("close");
    return this;
  }
}

/** Connects at once, or fails at once for the addresses in `down`. */
function fakeBase(down: Set<string>, made: FakeSocket[]): buildConnector.connector {
  return ((o: buildConnector.Options & { localAddress?: string }, cb: buildConnector.Callback) => {
    const s = new FakeSocket(o.localAddress ?? "");
    queueMicrotask(() => {
      if (down.has(s.localAddress)) cb(Object.assign(new Error("connect ENETUNREACH"), { code: "ENETUNREACH" }), null);
      else {
        made.push(s);
        cb(null, s as never);
      }
    });
    return s;
  }) as unknown as buildConnector.connector;
}

const options = { hostname: "2001:db8:ff::1", host: "[2001:db8:ff::1]:443", protocol: "https:", port: "443" } as buildConnector.Options;
const connect = (c: UplinkConnector, base: buildConnector.connector) =>
  new Promise<unknown>((resolve, reject) => c.connect(base, options, (err, s) => (err ? reject(err) : resolve(s))));

describe("UplinkConnector", () => {
  test("a new connection through the preferred uplink fails: the open connections through it are closed, those through others kept", async () => {
    const uplinks = [
      { name: "eth0", address: "2001:db8:1::5" },
      { name: "eth1", address: "2001:db8:2::5" },
    ];
    const cap = capturingLogger();
    const c = new UplinkConnector({ log: cap.log, uplinks: { current: () => uplinks } });
    const down = new Set<string>();
    const made: FakeSocket[] = [];
    const base = fakeBase(down, made);
    const first = (await connect(c, base)) as FakeSocket;
    expect(first.localAddress).toBe("2001:db8:1::5");
    down.add("2001:db8:1::5");
    const second = (await connect(c, base)) as FakeSocket;
    expect(second.localAddress).toBe("2001:db8:2::5");
    expect(cap.events("http.uplink")).toMatchObject([{ from: "eth0", to: "eth1" }]);
    expect(first.destroyed).toBe(true);
    expect(second.destroyed).toBe(false);
  });

  test("two connections made at once while the preferred uplink is silent (a resume and a pooled client's reconnect): one http.uplink line, not one per race", async () => {
    const uplinks = [
      { name: "eth0", address: "2001:db8:1::5" },
      { name: "eth1", address: "2001:db8:2::5" },
    ];
    const cap = capturingLogger();
    const c = new UplinkConnector({ log: cap.log, uplinks: { current: () => uplinks }, delayMs: 20 });
    const made: FakeSocket[] = [];
    const working = fakeBase(new Set(), made);
    // eth0 connects once (it is preferred), then its leaf dies silently: a connect through it never completes.
    await connect(c, working);
    const silentThenWorking = ((o: buildConnector.Options & { localAddress?: string }, cb: buildConnector.Callback) =>
      o.localAddress === "2001:db8:1::5" ? new FakeSocket(o.localAddress) : (working as unknown as typeof silentThenWorking)(o, cb)) as unknown as buildConnector.connector;
    const both = (await Promise.all([connect(c, silentThenWorking), connect(c, silentThenWorking)])) as FakeSocket[];
    expect(both.map((s) => s.localAddress)).toEqual(["2001:db8:2::5", "2001:db8:2::5"]);
    expect(cap.events("http.uplink")).toMatchObject([{ from: "eth0", to: "eth1" }]);
    expect(c.preferred).toBe("eth1");
  });

  test("a connection through the preferred uplink broke (HttpClient tells it): the other open connections through it are closed too", async () => {
    const uplinks = [
      { name: "eth0", address: "2001:db8:1::5" },
      { name: "eth1", address: "2001:db8:2::5" },
    ];
    const c = new UplinkConnector({ log: capturingLogger().log, uplinks: { current: () => uplinks } });
    const made: FakeSocket[] = [];
    const base = fakeBase(new Set(), made);
    const [a, b] = [(await connect(c, base)) as FakeSocket, (await connect(c, base)) as FakeSocket];
    expect([a.localAddress, b.localAddress]).toEqual(["2001:db8:1::5", "2001:db8:1::5"]);
    c.closePreferred();
    expect([a.destroyed, b.destroyed]).toEqual([true, true]);
  });

  test("an uplink goes: its connections end with ECONNABORTED (a retryable connect failure: a cut download resumes), and one uplink left of two is still bound", async () => {
    let uplinks = [
      { name: "eth0", address: "2001:db8:1::5" },
      { name: "eth1", address: "2001:db8:2::5" },
    ];
    const c = new UplinkConnector({ log: capturingLogger().log, uplinks: { current: () => uplinks } });
    expect(c.multiHomed).toBe(false);
    const a = (await connect(c, fakeBase(new Set(), []))) as FakeSocket;
    expect(c.multiHomed).toBe(true);
    uplinks = [{ name: "eth1", address: "2001:db8:2::5" }];
    expect(c.uplinksFor("2001:db8:ff::1")).toEqual(uplinks);
    expect(a.destroyed).toBe(true);
    expect(a.error).toMatchObject({ code: "ECONNABORTED", message: "uplink eth0 is gone (carrier, address or router)" });
    expect(isRetryableStreamFailure(a.error)).toBe(true);
    expect(c.multiHomed).toBe(true);
  });

  test("one uplink only, ever: not multi-homed (the image keeps Bun's native fetch)", () => {
    const c = new UplinkConnector({ log: capturingLogger().log, uplinks: { current: () => [{ name: "eth0", address: "2001:db8:1::5" }] } });
    expect(c.uplinksFor("2001:db8:ff::1")).toHaveLength(1);
    expect(c.multiHomed).toBe(false);
  });
});
