/**
 * HttpClient.streamNative (Bun's native fetch, the image's byte path) keeps the client's
 * rules: only the trusted CAs (the bundle plus CAs added at run time), https only unless
 * plain http is allowed, no redirects, the body as sent (no decompression), the headers bound.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";
import { makeCa, makeServerCert, type Ca } from "../../../lab/standins/pki.ts";

let dir = "";
let ca: Ca;
let other: Ca;
let tls: ReturnType<typeof Bun.serve>;
let plain: ReturnType<typeof Bun.serve>;
const GZ = gzipSync(Buffer.from("image bytes"));

const handler = (req: Request): Response | Promise<Response> => {
  const path = new URL(req.url).pathname;
  if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "/image" } });
  if (path === "/gzip") return new Response(GZ, { headers: { "content-encoding": "gzip" } });
  if (path === "/slow-headers") return Bun.sleep(2_000).then(() => new Response("late"));
  return new Response(`image for ${req.headers.get("range") ?? "all"}`);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mh-native-"));
  ca = makeCa(dir, "image-ca");
  other = makeCa(dir, "other-ca");
  const cert = makeServerCert(ca, "image-cache", ["127.0.0.1"], []);
  tls = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: cert.cert, key: cert.key }, fetch: handler });
  plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
});
afterAll(() => {
  tls.stop(true);
  plain.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const bundle = (c: Ca): string => {
  const f = join(dir, `bundle-${c === ca ? "ca" : "other"}.pem`);
  writeFileSync(f, c.pem);
  return f;
};
const text = async (body: AsyncIterable<Uint8Array>): Promise<string> => {
  let s = "";
  for await (const c of body) s += new TextDecoder().decode(c);
  return s;
};

describe("HttpClient.streamNative", () => {
  test("https against the trusted CA: the body, and the Range header sent", async () => {
    const http = new HttpClient({ caBundle: bundle(ca), allowHttp: false, log: silentLogger() });
    const r = await http.streamNative({ method: "GET", url: new URL(`https://127.0.0.1:${tls.port}/image`), what: "image download", headers: { range: "bytes=5-" } });
    expect(r.status).toBe(200);
    expect(await text(r.body)).toBe("image for bytes=5-");
  });

  test("a server whose CA is not trusted: tls (exit 22) naming the trusted CAs; a client derived with that CA (trusting) is trusted", async () => {
    const http = new HttpClient({ caBundle: bundle(other), allowHttp: false, log: silentLogger() });
    const u = new URL(`https://127.0.0.1:${tls.port}/image`);
    const e = await http.streamNative({ method: "GET", url: u, what: "image download" }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "tls", exitCode: 22 });
    expect(String((e as Error).message)).toContain(`image download (https://127.0.0.1:${tls.port}): TLS verification failed`);
    expect(String((e as Error).message)).toContain(`trusted CAs: ${bundle(other)} (METAL_CA)`);
    const r = await http.trusting([{ pem: ca.pem, name: "metal-boot's ca" }]).streamNative({ method: "GET", url: u, what: "image download" });
    expect(await text(r.body)).toBe("image for all");
  });

  test("plain http is refused unless allowed", async () => {
    const u = new URL(`http://127.0.0.1:${plain.port}/image`);
    const refused = new HttpClient({ caBundle: bundle(ca), allowHttp: false, log: silentLogger() });
    const e = await refused.streamNative({ method: "GET", url: u, what: "image download" }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "usage" });
    expect(String((e as Error).message)).toContain("plain http is refused unless METAL_ALLOW_HTTP=1");
    const allowed = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log: silentLogger() });
    expect(await text((await allowed.streamNative({ method: "GET", url: u, what: "image download" })).body)).toBe("image for all");
  });

  test("a redirect is not followed: the 3xx is the answer", async () => {
    const http = new HttpClient({ caBundle: bundle(ca), allowHttp: false, log: silentLogger() });
    const r = await http.streamNative({ method: "GET", url: new URL(`https://127.0.0.1:${tls.port}/redirect`), what: "image download" });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe("/image");
  });

  test("the body comes as sent: a gzip Content-Encoding is not undone (the checksum is over the bytes served)", async () => {
    const http = new HttpClient({ caBundle: bundle(ca), allowHttp: false, log: silentLogger() });
    const r = await http.streamNative({ method: "GET", url: new URL(`https://127.0.0.1:${tls.port}/gzip`), what: "image download" });
    const chunks: Uint8Array[] = [];
    for await (const c of r.body) chunks.push(c);
    expect(Buffer.concat(chunks)).toEqual(GZ);
  });

  test("no headers within the bound: unreachable, naming the bound", async () => {
    const http = new HttpClient({ caBundle: bundle(ca), allowHttp: false, log: silentLogger() });
    const t0 = performance.now();
    const e = await http
      .streamNative({ method: "GET", url: new URL(`https://127.0.0.1:${tls.port}/slow-headers`), what: "image download", headersTimeoutMs: 300 })
      .catch((x: unknown) => x);
    expect(performance.now() - t0).toBeLessThan(1_500);
    expect(e).toMatchObject({ code: "unreachable" });
    expect(String((e as Error).message)).toContain("no answer in time: no complete answer within the deadline of 300 ms [DEADLINE]");
  });
});
