/**
 * The Loki push (src/ops/remote-log/transport.ts) against hostile endpoints on loopback:
 * the shipper pushes during the whole flow, as PID 1. Before the bounds an endless
 * answer body grew the agent to 3.5 GiB in 8 s, and a trickling one held the push
 * (and with it all shipping) forever.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ERROR_BODY_CAP } from "../../src/clients/http/http-client.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { lokiTransport } from "../../src/ops/remote-log/transport.ts";
import { BLOCK_64K, endless, hostile, trickle, type Behaviour, type Hostile } from "./hostile.ts";

const servers: Hostile[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
});

async function push(b: Behaviour, deadlineMs = 10_000): Promise<{ h: Hostile; outcome: string; ms: number }> {
  const h = await hostile(b);
  servers.push(h);
  const t = lokiTransport({ endpoint: new URL(`${h.url}/loki/api/v1/push`) }, { secrets: new SecretSet(), timeoutMs: 1000, deadlineMs });
  closers.push(() => t.close());
  const t0 = performance.now();
  const outcome = await t.push('{"streams":[]}').then(
    () => "ok",
    (e: unknown) => (e as Error).message,
  );
  return { h, outcome, ms: performance.now() - t0 };
}

const CHUNKED = (status: string) => `HTTP/1.1 ${status}\r\nTransfer-Encoding: chunked\r\n\r\n`;
/** What the endpoint may get out before the push stops reading: the cap plus socket buffers. */
const SENT_BOUND = 16 << 20;

describe("Loki push against a hostile endpoint", () => {
  test("2xx with an endless body: the push ends, the answer read only up to the cap", async () => {
    const { h, outcome, ms } = await push((s, _r, c) => {
      s.write(CHUNKED("204 No Content"));
      void endless(s, BLOCK_64K, c.count);
    });
    expect(outcome).toBe("ok");
    expect(ms).toBeLessThan(5000);
    expect(h.sent()).toBeGreaterThanOrEqual(ERROR_BODY_CAP);
    expect(h.sent()).toBeLessThan(SENT_BOUND);
  });

  test("500 with an endless body: the push fails naming the status, the body cut", async () => {
    const { h, outcome } = await push((s, _r, c) => {
      s.write(CHUNKED("500 Internal Server Error"));
      void endless(s, BLOCK_64K, c.count);
    });
    expect(outcome).toStartWith(`${h.url}/loki/api/v1/push: HTTP 500 xxxx`);
    expect(h.sent()).toBeLessThan(SENT_BOUND);
  });

  test("a body trickling one byte per 200 ms (never idle for the 1 s timeout) ends at the push deadline", async () => {
    const { outcome, ms } = await push((s, _r, c) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
      void trickle(s, 200, c.count);
    }, 800);
    expect(outcome).toContain("no complete answer within the deadline of 800 ms");
    expect(ms).toBeGreaterThanOrEqual(750);
    expect(ms).toBeLessThan(5000);
  });
});
