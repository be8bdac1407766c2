/**
 * HttpClient with a resolver (the agent's, network/dns/resolver.ts): a URL by name goes
 * to the address the resolver gives, TLS is verified against the name (a certificate
 * without an IP SAN), and a DnsError is retried within the window, then is the failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { DnsError } from "../../../src/network/dns/dns-error.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";
import { makeCa, makeServerCert } from "../../../lab/standins/pki.ts";
import type { RetryEnv } from "../../../src/clients/http/retry.ts";

let dir = "";
let bundle = "";
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mh-byname-"));
  const ca = makeCa(dir, "boot-ca");
  const cert = makeServerCert(ca, "metal-boot", [], ["metal-boot.chain.lab"]);
  bundle = join(dir, "bundle.pem");
  writeFileSync(bundle, ca.pem);
  server = Bun.serve({ hostname: "::1", port: 0, tls: { cert: cert.cert, key: cert.key }, fetch: (req) => new Response(`served ${new URL(req.url).host}`) });
});
afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const noWait: RetryEnv = {
  now: (() => {
    let t = 0;
    return () => (t += 10);
  })(),
  random: () => 0,
  sleep: async () => undefined,
};

function client(aaaa: (host: string) => Promise<readonly string[]>) {
  return new HttpClient({
    caBundle: bundle,
    allowHttp: false,
    log: silentLogger(),
    resolver: { aaaa },
    retryEnv: noWait,
    retry: { attempts: 5, baseMs: 1, capMs: 1, totalMs: 1_000 },
  });
}

describe("HttpClient by name", () => {
  test("connects to the resolved address and verifies TLS against the name", async () => {
    const asked: string[] = [];
    const http = client(async (h) => (asked.push(h), ["::1"]));
    const r = await http.request({ method: "GET", url: new URL(`https://metal-boot.chain.lab:${server.port}/config`), what: "metal-boot config" });
    expect(new TextDecoder().decode(r.body)).toBe(`served metal-boot.chain.lab:${server.port}`);
    expect(r.address).toBe("::1");
    expect(asked).toEqual(["metal-boot.chain.lab"]);
  });
  test("a certificate for another name is a TLS failure, even at the right address", async () => {
    const http = client(async () => ["::1"]);
    const e = await http.request({ method: "GET", url: new URL(`https://apiserver.chain.lab:${server.port}/`), what: "apiserver" }).catch((x: unknown) => x);
    expect((e as { code?: string }).code).toBe("tls");
  });
  test("a DNS failure is retried within the window, and the answer taken when it comes", async () => {
    let n = 0;
    const http = client(async (h) => {
      if (++n < 3) throw new DnsError(h, "nxdomain", ["fd00:b007::53"], `${h}: no such name`);
      return ["::1"];
    });
    const r = await http.request({ method: "GET", url: new URL(`https://metal-boot.chain.lab:${server.port}/`), what: "metal-boot config" });
    expect([r.status, r.attempts, n]).toEqual([200, 3, 3]);
  });
  test("a DNS failure that lasts is the failure: its exit code, not 'unreachable'", async () => {
    const http = client(async (h) => {
      throw new DnsError(h, "servfail", ["fd00:b007::53"], `${h}: SERVFAIL`);
    });
    const e = await http.request({ method: "GET", url: new URL(`https://metal-boot.chain.lab:${server.port}/`), what: "metal-boot config" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DnsError);
    expect([(e as DnsError).failure, (e as DnsError).exitCode]).toEqual(["servfail", 17]);
  });
  test("streamNative goes to the address the resolver gave (the OS resolver never asked), TLS against the name", async () => {
    const asked: string[] = [];
    const http = client(async (h) => (asked.push(h), ["::1"]));
    // metal-boot.chain.lab is in no resolver of this host: a second lookup by fetch would fail.
    const r = await http.streamNative({ method: "GET", url: new URL(`https://metal-boot.chain.lab:${server.port}/img`), what: "image download" });
    expect(r.status).toBe(200);
    expect(await new Response(r.body as unknown as ReadableStream).text()).toBe(`served metal-boot.chain.lab:${server.port}`);
    expect(asked).toEqual(["metal-boot.chain.lab"]);
    const wrong = await client(async () => ["::1"])
      .streamNative({ method: "GET", url: new URL(`https://apiserver.chain.lab:${server.port}/img`), what: "image download" })
      .catch((x: unknown) => x);
    expect((wrong as { code?: string }).code).toBe("tls");
  });
  test("streamNative asks the resolver first: its failure is named", async () => {
    const http = client(async (h) => {
      throw new DnsError(h, "only_a", ["fd00:b007::53"], `${h}: only A records`);
    });
    const e = await http.streamNative({ method: "GET", url: new URL(`https://images.chain.lab:${server.port}/img`), what: "image download" }).catch((x: unknown) => x);
    expect([(e as DnsError).failure, (e as DnsError).exitCode]).toEqual(["only_a", 16]);
  });
});
