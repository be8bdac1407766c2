/** The transport against hostile servers on loopback, in-process with a fake retry clock: codes, messages and bounds. */
import { afterEach, describe, expect, test } from "bun:test";
import { BadAnswerError } from "../../../src/clients/http/bad-answer.ts";
import { HttpClient, ERROR_BODY_CAP } from "../../../src/clients/http/http-client.ts";
import type { RetryEnv } from "../../../src/clients/http/retry.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";
import { ConnectClient } from "../../../src/clients/api/connect-client.ts";
import { decoder } from "../../../src/clients/api/rpc.ts";
import { BootServiceWaitResponseSchema } from "../../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { chunk, endless, envelope, hostile, trickle, type Hostile } from "../../bounds/hostile.ts";

const servers: Hostile[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
});

const env: RetryEnv = { now: () => 0, random: () => 0.5, sleep: async () => {} };
function client(opts: { retryAttempts?: number } = {}): HttpClient {
  const c = new HttpClient({
    caBundle: "/nonexistent",
    allowHttp: true,
    log: silentLogger(),
    retryEnv: env,
    retry: { attempts: opts.retryAttempts ?? 6, baseMs: 1, capMs: 1, totalMs: 60_000 },
  });
  clients.push(c);
  return c;
}
async function serve(b: Parameters<typeof hostile>[0]): Promise<Hostile> {
  const h = await hostile(b);
  servers.push(h);
  return h;
}
const CHUNKED = (status: string) => `HTTP/1.1 ${status}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n`;
const BLOCK = chunk(Buffer.alloc(64 << 10, 0x78));

describe("bounded answers", () => {
  test("an endless 200 body stops at the 4 MiB cap: bad_answer naming the cap", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("200 OK"));
      void endless(s, BLOCK, c.count);
    });
    const e = await client()
      .request({ method: "GET", url: new URL(`${h.url}/config/x`), what: "metal-boot config" })
      .catch((x) => x);
    expect([e.code, e.exitCode]).toEqual(["bad_answer", 24]);
    expect(e.message).toBe(`metal-boot config: answer larger than the cap of 4194304 bytes from ${h.url}/config/x (see docs/bounds.md)`);
    expect(h.requests.length).toBe(1);
  });

  test("an endless 500 body is cut at 64 KiB; a GET's 500 is retried 3 times, then the answer is handed back", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("500 Internal Server Error"));
      void endless(s, BLOCK, c.count);
    });
    const r = await client().request({ method: "GET", url: new URL(`${h.url}/config/x`), what: "metal-boot config" });
    expect([r.status, r.attempts, r.body.byteLength, h.requests.length]).toEqual([500, 4, ERROR_BODY_CAP, 4]);
  });

  test("a POST's 500 is not retried", async () => {
    const h = await serve((s) => void s.end("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\n{}"));
    const r = await client().request({ method: "POST", url: new URL(`${h.url}/x`), what: "apiserver call", body: "{}" });
    expect([r.status, r.attempts, h.requests.length]).toEqual([500, 1, 1]);
  });

  test("a body trickling at one byte per 50 ms ends at the deadline: unreachable naming the deadline", async () => {
    const h = await serve((s, _r, c) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
      void trickle(s, 50, c.count);
    });
    const t0 = performance.now();
    const e = await client()
      .request({ method: "GET", url: new URL(`${h.url}/slow`), what: "metal-boot config", deadlineMs: 400 })
      .catch((x) => x);
    const ms = performance.now() - t0;
    expect([e.code, e.exitCode]).toEqual(["unreachable", 23]);
    expect(e.message).toContain("metal-boot config (http://[::1]:");
    expect(e.message).toContain("no complete answer within the deadline of 400 ms");
    expect(ms).toBeLessThan(5_000);
  });

  test("headers that never come end at the same deadline", async () => {
    const h = await serve(() => {});
    const e = await client()
      .request({ method: "GET", url: new URL(`${h.url}/silent`), what: "image cache", deadlineMs: 300 })
      .catch((x) => x);
    expect(e.code).toBe("unreachable");
    expect(e.message).toContain("deadline of 300 ms");
  });
});

describe("malformed HTTP and broken connections", () => {
  for (const [name, answer] of [
    ["a bad Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello"],
    ["bad chunking", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"],
    ["no HTTP at all", "SSH-2.0-OpenSSH_9.2\r\n\r\n"],
  ] as const) {
    test(`${name} is bad_answer (24) saying the answer is not valid HTTP, not retried`, async () => {
      const h = await serve((s) => void s.end(answer));
      const e = await client()
        .request({ method: "GET", url: new URL(`${h.url}/config/x`), what: "metal-boot config" })
        .catch((x) => x);
      expect([e.code, e.exitCode]).toEqual(["bad_answer", 24]);
      expect(e.message).toStartWith(`metal-boot config (${h.url}): the answer is not valid HTTP/1.1: Response does not match the HTTP/1.1 protocol`);
      expect(h.requests.length).toBe(1);
    });
  }

  test("a reset after the headers says the connection broke while the answer streamed (not 'cannot connect'), not retried", async () => {
    const h = await serve((s) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789", () => s.resetAndDestroy());
    });
    const e = await client()
      .request({ method: "GET", url: new URL(`${h.url}/config/x`), what: "metal-boot config" })
      .catch((x) => x);
    expect(e.code).toBe("unreachable");
    expect(e.message).toStartWith(`metal-boot config (${h.url}): the connection broke while the answer streamed: `);
    expect(e.message).not.toContain("cannot connect");
    expect(h.requests.length).toBe(1);
  });
});

describe("Connect streams", () => {
  const api = (h: Hostile) => new ConnectClient(client(), new URL(h.url), "token-0123456789abcdef");
  const collect = async (h: Hostile) => {
    const got: unknown[] = [];
    try {
      for await (const m of api(h).serverStream("metalstack.infra.v2.BootService/Wait", { uuid: "u" }, decoder(BootServiceWaitResponseSchema), { retry: false })) got.push(m);
      return { got, error: undefined };
    } catch (e) {
      if (!(e instanceof AgentError)) throw e;
      return { got, error: e };
    }
  };
  const STREAM = "HTTP/1.1 200 OK\r\nContent-Type: application/connect+json\r\nTransfer-Encoding: chunked\r\n\r\n";

  test("an endless error body is read only up to 64 KiB, then the status speaks", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("500 Internal Server Error"));
      void endless(s, BLOCK, c.count);
    });
    const { error } = await collect(h);
    expect(error?.message).toBe("apiserver metalstack.infra.v2.BootService/Wait (stream): unknown: HTTP 500");
  });

  test("an envelope claiming 0x7fffffff bytes is a protocol violation at once", async () => {
    const h = await serve((s) => void s.write(Buffer.concat([Buffer.from(STREAM), chunk(envelope(0, "{}", 0x7fffffff))])));
    const { error } = await collect(h);
    expect([error?.code, error instanceof BadAnswerError && error.violation, error?.details.violation]).toEqual(["bad_answer", true, true]);
    expect(error?.message).toBe("apiserver metalstack.infra.v2.BootService/Wait (stream): envelope at byte 0: length 2147483647 exceeds the limit of 4194304 bytes");
  });

  test("invalid JSON and a wrong schema are violations naming what was wrong", async () => {
    const bad = await serve((s) => void s.write(Buffer.concat([Buffer.from(STREAM), chunk(envelope(0, "{nope"))])));
    const r1 = await collect(bad);
    expect([r1.error?.code, r1.error instanceof BadAnswerError && r1.error.violation, r1.error?.details.violation]).toEqual(["bad_answer", true, true]);
    expect(r1.error?.message).toContain("an envelope does not hold valid JSON (5 bytes)");
    const wrong = await serve((s) => void s.write(Buffer.concat([Buffer.from(STREAM), chunk(envelope(0, '{"allocation":5}'))])));
    const r2 = await collect(wrong);
    expect([r2.error?.code, r2.error instanceof BadAnswerError && r2.error.violation, r2.error?.details.violation]).toEqual(["bad_answer", true, true]);
    expect(r2.error?.message).toContain("not a metalstack.infra.v2.BootServiceWaitResponse: cannot decode message metalstack.api.v2.MachineAllocation from JSON: 5");
  });

  test("a stream cut short is bad_answer without violation (a reconnect may heal it)", async () => {
    const h = await serve((s) => void s.end(Buffer.concat([Buffer.from(STREAM), chunk(envelope(0, "{}")), Buffer.from("0\r\n\r\n")])));
    const { got, error } = await collect(h);
    expect(got).toEqual([{ $typeName: "metalstack.infra.v2.BootServiceWaitResponse" }]);
    // Typed (the Wait loop reopens it) and in the log line's details, from the same value.
    expect([error?.code, error instanceof BadAnswerError ? error.violation : "not a BadAnswerError", error?.details.violation]).toEqual(["bad_answer", false, false]);
    expect(error?.message).toContain("stream ended without the end-of-stream envelope");
  });
});

describe("image download", () => {
  test("an endless image body ends once it passes the size HEAD announced (exit 30), not at the end of time", async () => {
    const { verifyImage } = await import("../../../src/clients/image-cache/probe.ts");
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("200 OK"));
      void endless(s, BLOCK, c.count);
    });
    const url = new URL(`${h.url}/debian-12.tar.lz4`);
    const probe = { url: url.href, size: 1 << 20, checksum: { algo: "sha256" as const, hex: "0".repeat(64) }, checksumUrl: `${url.href}.sha256`, latencyMs: 1, address: "::1" };
    const e = await verifyImage(client(), probe, url).catch((x) => x);
    expect([e.code, e.exitCode]).toEqual(["image_cache", 30]);
    expect(e.message).toBe(`image cache: ${url.href} is larger than the 1048576 bytes HEAD announced`);
    expect(h.sent()).toBeLessThan(64 << 20);
  });
});
