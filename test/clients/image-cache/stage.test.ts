/**
 * The image stage (src/agent/image-stage.ts): without a cache URL it is skipped with one info
 * line and no request; with one, a HEAD of the base URL must answer below 500 (a 404
 * or 403 of the bare base still means the cache is there); 500 and above is exit 30
 * naming the URL. On loopback over plain http (TLS is HttpClient's, tested in test/clients/http).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Boot } from "../../../src/clients/metal-boot/boot.ts";
import { toAgentError } from "../../../src/platform/errors.ts";
import { image } from "../../../src/agent/image-stage.ts";
import { bootedHttp } from "../../../src/agent/boot-facts.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

const seen: { method: string; path: string }[] = [];
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      seen.push({ method: req.method, path });
      return new Response(null, { status: Number(path.split("/")[1]) || 200 });
    },
  });
});
afterAll(() => server.stop(true));

function stage() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() });
  const http = new HttpClient({ caBundle: "/etc/ssl/certs/ca-certificates.crt", allowHttp: true, log, retry: { attempts: 2, baseMs: 1, capMs: 1, totalMs: 1000 } });
  const s = { http: bootedHttp(http, []), log };
  const run = (cache: string | undefined) => image({ imageCacheUrl: cache === undefined ? undefined : new URL(cache, server.url) } as Boot, s);
  return { run, lines, close: () => http.close() };
}

describe("image stage", () => {
  test("no cache configured: skipped with one info line naming both ways to set it, and no request", async () => {
    const st = stage();
    seen.length = 0;
    expect(await st.run(undefined)).toBeUndefined();
    expect(seen).toEqual([]);
    expect(st.lines.map((l) => [l.event, l.level])).toEqual([["image.skip", 30]]);
    expect(String(st.lines[0]?.msg)).toContain("METAL_IMAGE_CACHE_URL, or image_cache_url from metal-boot");
    await st.close();
  });

  test("a HEAD of the base URL answered below 500 (200, or 404 for a bare base) means the cache is there", async () => {
    const st = stage();
    seen.length = 0;
    expect(await st.run("/200/")).toMatchObject({ status: 200 });
    expect(await st.run("/404/")).toMatchObject({ status: 404 });
    expect(seen).toEqual([
      { method: "HEAD", path: "/200/" },
      { method: "HEAD", path: "/404/" },
    ]);
    expect(st.lines.filter((l) => l.event === "image.probe").map((l) => l.status)).toEqual([200, 404]);
    await st.close();
  });

  test("500 and above: image_cache (exit 30) naming the URL and the status", async () => {
    const st = stage();
    const e = toAgentError(await st.run("/503/").catch((x) => x));
    expect([e.code, e.exitCode]).toEqual(["image_cache", 30]);
    expect(e.message).toStartWith(`image cache: HEAD ${new URL("/503/", server.url).href} answered 503`);
    await st.close();
  });
});
