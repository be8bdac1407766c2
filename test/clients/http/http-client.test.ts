/** HttpClient over plain http on loopback (allowHttp), with an injected retry clock: no real waiting. */
import { afterAll, describe, expect, test } from "bun:test";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import type { RetryEnv } from "../../../src/clients/http/retry.ts";

let failuresLeft = 0;
let failStatus = 503;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/flaky") return failuresLeft-- > 0 ? new Response("busy", { status: failStatus }) : new Response("ok");
    if (path === "/big") return new Response("x".repeat(2048));
    if (path === "/404") return new Response("no", { status: 404 });
    return new Response("hello");
  },
});
afterAll(() => server.stop(true));

function client(allowHttp = true) {
  const lines: string[] = [];
  const slept: number[] = [];
  const env: RetryEnv = { now: () => 0, random: () => 0.5, sleep: async (ms) => void slept.push(ms) };
  const log = createLogger({ level: "info", format: "json", write: (l) => lines.push(l), secrets: new SecretSet() });
  const http = new HttpClient({ caBundle: "/nonexistent", allowHttp, log, retryEnv: env, retry: { attempts: 4, baseMs: 100, capMs: 1000, totalMs: 10_000 } });
  return { http, lines, slept };
}
const url = (p: string) => new URL(`http://127.0.0.1:${server.port}${p}`);

describe("HttpClient", () => {
  test("a 200 with body, latency, attempts and the address used", async () => {
    const { http } = client();
    const r = await http.request({ method: "GET", url: url("/"), what: "test" });
    expect([r.status, new TextDecoder().decode(r.body), r.attempts, r.address]).toEqual([200, "hello", 1, "127.0.0.1"]);
    await http.close();
  });

  test("503 twice then 200: two http.retry lines with the jittered delays", async () => {
    failuresLeft = 2;
    const { http, lines, slept } = client();
    const r = await http.request({ method: "GET", url: url("/flaky"), what: "flaky thing" });
    expect([r.status, r.attempts]).toEqual([200, 3]);
    expect(slept).toEqual([50, 100]);
    const retries = lines.map((l) => JSON.parse(l)).filter((l) => l.event === "http.retry");
    expect(retries.map((l) => l.msg)).toEqual([
      "flaky thing: attempt 1/4 failed (status 503); next attempt in 50 ms",
      "flaky thing: attempt 2/4 failed (status 503); next attempt in 100 ms",
    ]);
    await http.close();
  });

  test("still 503 when attempts run out: the last answer comes back for the caller to map", async () => {
    failuresLeft = 99;
    const { http, slept } = client();
    const r = await http.request({ method: "GET", url: url("/flaky"), what: "flaky thing" });
    expect([r.status, r.attempts, slept.length]).toEqual([503, 4, 3]);
    await http.close();
  });

  test("a 429 and a 408 are retried like a 503 (classify.ts statusRetry)", async () => {
    for (const status of [429, 408]) {
      failuresLeft = 1;
      failStatus = status;
      const { http, slept } = client();
      const r = await http.request({ method: "GET", url: url("/flaky"), what: "flaky thing" });
      expect([status, r.status, r.attempts, slept]).toEqual([status, 200, 2, [50]]);
      await http.close();
    }
    failStatus = 503;
  });

  test("a 404 is an answer, not retried", async () => {
    const { http, slept } = client();
    expect((await http.request({ method: "GET", url: url("/404"), what: "t" })).status).toBe(404);
    expect(slept).toEqual([]);
    await http.close();
  });

  test("an answer larger than maxBytes is bad_answer", async () => {
    const { http } = client();
    const e = await http.request({ method: "GET", url: url("/big"), what: "big thing", maxBytes: 1024 }).catch((x) => x);
    expect(e.code).toBe("bad_answer");
    expect(e.message).toContain("big thing: answer larger than the cap of 1024 bytes");
    await http.close();
  });

  test("plain http without METAL_ALLOW_HTTP is refused before any connection", async () => {
    const { http } = client(false);
    const e = await http.request({ method: "GET", url: url("/"), what: "metal-boot config" }).catch((x) => x);
    expect(e.code).toBe("usage");
    expect(e.message).toBe(`metal-boot config: http://127.0.0.1:${server.port}/: plain http is refused unless METAL_ALLOW_HTTP=1 is on the kernel cmdline`);
    await http.close();
  });

  test("connection refused is retried, then unreachable naming the attempts", async () => {
    const { http, slept } = client();
    const e = await http.request({ method: "GET", url: new URL("http://127.0.0.1:9/"), what: "nothing" }).catch((x) => x);
    expect(e.code).toBe("unreachable");
    expect(e.message).toContain("nothing (http://127.0.0.1:9): cannot connect after 4 attempt(s)");
    expect(slept.length).toBe(3);
    await http.close();
  });

  test("an unreadable CA bundle is a tls error naming the file and METAL_CA", async () => {
    const { http } = client();
    const e = await http.request({ method: "GET", url: new URL("https://127.0.0.1:9/"), what: "x", retry: false }).catch((x) => x);
    expect(e.code).toBe("tls");
    expect(e.message).toContain("cannot read the CA bundle /nonexistent (METAL_CA)");
    await http.close();
  });
});
