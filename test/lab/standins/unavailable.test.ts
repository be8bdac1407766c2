/**
 * The balancer fault in front of the apiserver stand-in (lab/standins/unavailable.ts):
 * every n-th request inside the window is answered 503, exactly floor(requests / n) of
 * them, nothing outside it; the control endpoint refuses a bad spec by name. Over HTTPS on
 * loopback: the 503 carries no Connect error body, and the agent's own Connect client
 * maps it to `unavailable`, retries it and logs the retry with the status as its reason.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLocalPeer } from "../../../lab/standins/api-server.ts";
import { BALANCER_BODY, parseUnavailableSpec, UnavailableWindow } from "../../../lab/standins/unavailable.ts";
import { ConnectClient } from "../../../src/clients/api/connect-client.ts";
import { apiVersion } from "../../../src/clients/api/api-version.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import type { RetryEnv } from "../../../src/clients/http/retry.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { loopbackStandins } from "../../helpers/loopback-standins.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

describe("UnavailableWindow", () => {
  test("every third request inside the window is answered 503: the 3rd, 6th, 9th", () => {
    let now = 1_000;
    const w = new UnavailableWindow(() => now);
    w.set({ every: 3, ms: 500 });
    const answers = Array.from({ length: 10 }, () => w.take());
    expect(answers).toEqual([false, false, true, false, false, true, false, false, true, false]);
    expect(w.report()).toEqual({ every: 3, ms: 500, startedAt: 1_000, endsAt: 1_500, active: true, requests: 10, unavailable: 3 });
    now = 1_499;
    w.take();
    w.take();
    expect(w.report()).toMatchObject({ requests: 12, unavailable: 4, active: true });
  });

  test("nothing is counted or refused before the first window or after it closed", () => {
    let now = 0;
    const w = new UnavailableWindow(() => now);
    expect([w.take(), w.take(), w.take()]).toEqual([false, false, false]);
    expect(w.report()).toEqual({ every: 0, ms: 0, startedAt: null, endsAt: null, active: false, requests: 0, unavailable: 0 });
    w.set({ every: 2, ms: 100 });
    expect([w.take(), w.take()]).toEqual([false, true]);
    now = 100;
    expect([w.take(), w.take(), w.take()]).toEqual([false, false, false]);
    expect(w.report()).toMatchObject({ requests: 2, unavailable: 1, active: false, endsAt: 100 });
  });

  test("the window opens with the first request after it is set, however late that comes", () => {
    let now = 1_000;
    const w = new UnavailableWindow(() => now);
    expect(w.set({ every: 2, ms: 100 })).toMatchObject({ startedAt: null, endsAt: null, active: true, requests: 0 });
    now = 60_000; // the machines took a minute to reach the apiserver
    expect(w.report()).toMatchObject({ startedAt: null, active: true });
    expect([w.take(), w.take()]).toEqual([false, true]);
    expect(w.report()).toEqual({ every: 2, ms: 100, startedAt: 60_000, endsAt: 60_100, active: true, requests: 2, unavailable: 1 });
    now = 60_100;
    expect(w.take()).toBe(false);
    expect(w.report()).toMatchObject({ active: false, requests: 2 });
  });

  test("a new window starts its counts from zero", () => {
    const w = new UnavailableWindow(() => 0);
    w.set({ every: 3, ms: 10 });
    w.take();
    w.take();
    w.set({ every: 3, ms: 10 });
    expect([w.take(), w.take(), w.take()]).toEqual([false, false, true]);
    expect(w.report()).toMatchObject({ requests: 3, unavailable: 1 });
  });

  test("for n requests in the window exactly floor(n / every) are 503", () => {
    for (const every of [2, 3, 7]) {
      for (const n of [0, 1, 2, 3, 4, 20, 101]) {
        const w = new UnavailableWindow(() => 0);
        w.set({ every, ms: 1 });
        const sent = Array.from({ length: n }, () => w.take()).filter(Boolean).length;
        expect([every, n, sent]).toEqual([every, n, Math.floor(n / every)]);
      }
    }
  });
});

describe("parseUnavailableSpec", () => {
  test("takes {every, ms} and names what is wrong otherwise", () => {
    expect(parseUnavailableSpec({ every: 3, ms: 60_000 })).toEqual({ every: 3, ms: 60_000 });
    expect(parseUnavailableSpec({ every: 1, ms: 10 })).toEqual({ error: "expected {every, ms}: every an integer 2..1000 (every every-th request is answered 503), got 1" });
    expect(parseUnavailableSpec({ every: "3", ms: 10 })).toEqual({ error: 'expected {every, ms}: every an integer 2..1000 (every every-th request is answered 503), got "3"' });
    expect(parseUnavailableSpec({ every: 3, ms: 600_001 })).toEqual({ error: "expected {every, ms}: ms an integer 0..600000, got 600001" });
    expect(parseUnavailableSpec({ every: 3 })).toEqual({ error: "expected {every, ms}: ms an integer 0..600000, got undefined" });
    expect(parseUnavailableSpec(undefined)).toMatchObject({ error: expect.stringContaining("every an integer") });
  });
});

describe("isLocalPeer", () => {
  test("loopback or the server's own address is local; another host's address is not", () => {
    expect(isLocalPeer("::1", "::1")).toBe(true);
    expect(isLocalPeer("127.0.0.1", "127.0.0.1")).toBe(true);
    expect(isLocalPeer("::ffff:127.0.0.1", "::ffff:127.0.0.1")).toBe(true);
    expect(isLocalPeer("2001:db8:f1::1", "2001:db8:f1::1")).toBe(true);
    expect(isLocalPeer("2001:db8:f1::a8", "2001:db8:f1::1")).toBe(false);
    expect(isLocalPeer(undefined, "2001:db8:f1::1")).toBe(false);
  });
});

const openssl = Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0 ? undefined : "openssl";
const ok = prerequisites("the apiserver stand-in's balancer fault over HTTPS", [openssl]);

const box = loopbackStandins("mh-unavail-", ok);

const VERSION = "/metalstack.api.v2.VersionService/Get";
const control = async (body?: unknown) => {
  const r = await fetch(`${box.st.urls.api}/_standin/unavailable`, {
    ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
    tls: { ca: box.st.apiCa.pem },
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
};
const versionGet = async () => {
  const r = await fetch(`${box.st.urls.api}${VERSION}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", tls: { ca: box.st.apiCa.pem } });
  return { status: r.status, type: r.headers.get("content-type"), body: await r.text() };
};

describe.if(ok)("the apiserver stand-in behind a balancer with a third of its backends down", () => {
  test("POST /_standin/unavailable {every: 3}: the 3rd, 6th and 9th request get the balancer's plain 503", async () => {
    expect(await control({ every: 3, ms: 60_000 })).toMatchObject({ status: 200, json: { every: 3, ms: 60_000, requests: 0, unavailable: 0, active: true } });
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await versionGet());
    expect(answers.map((a) => a.status)).toEqual([200, 200, 503, 200, 200, 503, 200, 200, 503]);
    expect(answers[2]).toEqual({ status: 503, type: "text/plain; charset=utf-8", body: BALANCER_BODY });
    expect(JSON.parse(answers[0]?.body ?? "")).toMatchObject({ version: { version: "v0.5.0-standin" } });
    // The control requests themselves are not counted; the request log holds the 503s the balancer sent.
    expect((await control()).json).toMatchObject({ requests: 9, unavailable: 3 });
    expect(box.st.log.of("api").filter((e) => e.path === VERSION && e.status === 503)).toHaveLength(3);
  });

  test("a bad spec is refused with 400 naming what was expected", async () => {
    expect(await control({ every: 0, ms: 10 })).toEqual({
      status: 400,
      json: { error: "/_standin/unavailable: expected {every, ms}: every an integer 2..1000 (every every-th request is answered 503), got 0" },
    });
  });

  test("the agent's Connect client maps the balancer's 503 to unavailable, retries it and logs the reason", async () => {
    await control({ every: 2, ms: 60_000 });
    const caFile = join(box.dir, "api-ca.pem");
    writeFileSync(caFile, box.st.apiCa.pem);
    const lines: string[] = [];
    const log = createLogger({ level: "info", format: "json", write: (l) => lines.push(l), secrets: new SecretSet() });
    const slept: number[] = [];
    const env: RetryEnv = { now: () => 0, random: () => 0.5, sleep: async (ms) => void slept.push(ms) };
    const once = new HttpClient({ caBundle: caFile, allowHttp: false, log, retry: { attempts: 1, baseMs: 100, capMs: 1_000, totalMs: 10_000 } });
    const retrying = new HttpClient({ caBundle: caFile, allowHttp: false, log, retryEnv: env, retry: { attempts: 4, baseMs: 100, capMs: 1_000, totalMs: 10_000 } });
    try {
      const api = (http: HttpClient) => new ConnectClient(http, new URL(box.st.urls.api), undefined);
      // Request 1 is answered, request 2 is the balancer's 503: without retries the code is unavailable (exit 23, unreachable).
      await apiVersion(api(once));
      const refused = await apiVersion(api(once)).catch((e: unknown) => e);
      expect(refused).toMatchObject({ connectCode: "unavailable", connectMessage: "HTTP 503", code: "unreachable" });
      // Request 3 answered; request 4 is a 503, retried as request 5 (answered): one http.retry line naming the status.
      await apiVersion(api(once));
      await apiVersion(api(retrying));
      const retries = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === "http.retry");
      expect(retries).toMatchObject([{ what: `apiserver ${VERSION.slice(1)}`, attempt: 1, reason: "status 503", delayMs: 50 }]);
      expect(slept).toEqual([50]);
      expect((await control()).json).toMatchObject({ requests: 5, unavailable: 2 });
    } finally {
      await once.close();
      await retrying.close();
    }
  });
});
