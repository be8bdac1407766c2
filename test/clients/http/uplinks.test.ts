/**
 * HttpClient bound to uplinks over loopback (no root): each connection leaves from an
 * uplink's address (the server sees it), an uplink whose address cannot be bound
 * (EADDRNOTAVAIL: not on this machine) is passed over at once with one http.uplink
 * line naming both, and the uplink that worked stays first for the next connection.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import type { LocalUplink } from "../../../src/clients/http/uplink-order.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";
import { lokiTransport } from "../../../src/ops/remote-log/transport.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

/** Who connected, per path (the Loki push answers 204, so its source is kept here). */
const seen: string[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) => {
    const from = srv.requestIP(req)?.address ?? "?";
    const path = new URL(req.url).pathname;
    seen.push(`${path} ${from}`);
    // A stream that stays open (as Wait's does) until the client goes.
    // Which connection (its source port): a pooled one answers with the port it had.
    if (path === "/port") return new Response(String(srv.requestIP(req)?.port ?? "?"));
    if (path === "/held") return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(`${from}\n`)) }));
    return new Response(from);
  },
});
afterAll(() => server.stop(true));

function client(uplinks: LocalUplink[]) {
  const cap = capturingLogger();
  const http = new HttpClient({
    caBundle: "/nonexistent",
    allowHttp: true,
    log: cap.log,
    uplinks: { current: () => uplinks },
    retry: { attempts: 1, baseMs: 1, capMs: 1, totalMs: 1 },
  });
  return { http, cap };
}
const get = async (http: HttpClient, path = "/") =>
  new TextDecoder().decode((await http.request({ method: "GET", url: new URL(`http://127.0.0.1:${server.port}${path}`), what: "test", headers: { connection: "close" } })).body);

describe("HttpClient over uplinks", () => {
  test("a connection leaves from the first uplink's address", async () => {
    const { http, cap } = client([
      { name: "lo-a", address: "127.0.0.7" },
      { name: "lo-b", address: "127.0.0.8" },
    ]);
    expect(await get(http)).toBe("127.0.0.7");
    expect(cap.events("http.uplink")).toEqual([]);
    await http.close();
  });

  test("an uplink that cannot connect is passed over at once: one http.uplink line naming both NICs and why; the working one stays first", async () => {
    const { http, cap } = client([
      { name: "gone0", address: "192.0.2.1" },
      { name: "lo-b", address: "127.0.0.8" },
    ]);
    const t0 = performance.now();
    expect(await get(http)).toBe("127.0.0.8");
    // Well inside the 300 ms connect-attempt delay: a failure starts the next uplink at once.
    expect(performance.now() - t0).toBeLessThan(300);
    expect(await get(http, "/again")).toBe("127.0.0.8");
    const lines = cap.events("http.uplink");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, from: "gone0", to: "lo-b", address: "127.0.0.8" });
    expect(String(lines[0]?.msg)).toMatch(/^connections now go through lo-b instead of gone0: connect through gone0 failed: .*EADDRNOTAVAIL/);
    await http.close();
  });

  test("the image's bulk path (streamNative) is bound too when there are two uplinks (Bun's fetch cannot bind: it goes through undici)", async () => {
    const { http } = client([
      { name: "gone0", address: "192.0.2.1" },
      { name: "lo-b", address: "127.0.0.8" },
    ]);
    const r = await http.streamNative({ method: "GET", url: new URL(`http://127.0.0.1:${server.port}/image`), what: "image download" });
    const chunks: Uint8Array[] = [];
    for await (const c of r.body) chunks.push(c);
    expect([r.status, new TextDecoder().decode(Buffer.concat(chunks))]).toEqual([200, "127.0.0.8"]);
    await http.close();
  });

  test("remote logs: the Loki transport shares the client's uplinks (the working one preferred already)", async () => {
    const { http } = client([
      { name: "gone0", address: "192.0.2.1" },
      { name: "lo-b", address: "127.0.0.8" },
    ]);
    const loki = lokiTransport({ endpoint: new URL(`http://127.0.0.1:${server.port}/loki/api/v1/push`) }, { secrets: new SecretSet(), uplinks: http.uplinks });
    await loki.push("{}");
    expect(seen.at(-1)).toBe("/loki/api/v1/push 127.0.0.8");
    expect(http.uplinks.preferred).toBe("lo-b");
    await loki.close();
    await http.close();
  });

  test("an uplink that is gone (carrier, address or router): its open connections are closed at the next request, which goes through another", async () => {
    const uplinks = [{ name: "lo-a", address: "127.0.0.7" }];
    const { http } = client(uplinks);
    const held = await http.stream({ method: "GET", url: new URL(`http://127.0.0.1:${server.port}/held`), what: "held stream" });
    const it = held.body[Symbol.asyncIterator]();
    expect(new TextDecoder().decode((await it.next()).value)).toBe("127.0.0.7\n");
    uplinks.splice(0, 1, { name: "lo-b", address: "127.0.0.8" });
    expect(await get(http, "/after")).toBe("127.0.0.8");
    // The held stream through lo-a ends now, not at some timeout.
    const end = await it.next().then(
      (r) => (r.done ? "ended" : "data"),
      (e: Error) => e.message,
    );
    expect(end).not.toBe("data");
    await http.close();
  });

  test("a streamed body broken off by its reader (the image's stall guard): the next request makes a new connection, no pooled one through that uplink", async () => {
    const { http } = client([
      { name: "lo-a", address: "127.0.0.7" },
      { name: "lo-b", address: "127.0.0.8" },
    ]);
    const port = async () => new TextDecoder().decode((await http.request({ method: "GET", url: new URL(`http://127.0.0.1:${server.port}/port`), what: "test" })).body);
    // Keep-alive requests (as the checksum sidecars') leave their connections pooled (undici opens a second one while
    // the first is being released): the next request takes one of them.
    const pooled = new Set([await port(), await port()]);
    expect(pooled.has(await port())).toBe(true);
    // Their leaf may have died silently (the stall says no more): the resume must not take a pooled connection into it.
    await http.bodyBroke();
    expect(pooled.has(await port())).toBe(false);
    await http.close();
  });

  test("no uplinks: connections are not bound (the kernel picks the source)", async () => {
    const { http } = client([]);
    expect(await get(http)).toBe("127.0.0.1");
    await http.close();
  });
});
