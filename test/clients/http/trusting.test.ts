/**
 * HttpClient.trusting: the client the stages after boot use is derived from the boot
 * facts (metal-boot's CA) instead of the shared client being changed mid-flow. The
 * derived client trusts the CA, the one it came from stays as it was, and closing
 * that one closes the derived one too (the exec hand-off closes one client).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";
import { makeCa, makeServerCert, type Ca } from "../../../lab/standins/pki.ts";

let dir = "";
let ca: Ca;
let other: Ca;
let otherFile = "";
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mh-trusting-"));
  ca = makeCa(dir, "apiserver-ca");
  other = makeCa(dir, "boot-ca");
  otherFile = join(dir, "bundle.pem");
  writeFileSync(otherFile, other.pem);
  const cert = makeServerCert(ca, "apiserver", ["127.0.0.1"], []);
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: cert.cert, key: cert.key }, fetch: () => new Response("answer") });
});
afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const get = (http: HttpClient) => http.request({ method: "GET", url: new URL(`https://127.0.0.1:${server.port}/`), what: "apiserver", retry: false });

describe("HttpClient.trusting", () => {
  test("the derived client trusts the CA; the client it came from does not, and is unchanged", async () => {
    const base = new HttpClient({ caBundle: otherFile, allowHttp: false, log: silentLogger() });
    try {
      const refused = await get(base).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: "tls", exitCode: 22 });
      const derived = base.trusting([{ pem: ca.pem, name: "the CA from metal-boot" }]);
      expect(derived).not.toBe(base);
      expect(new TextDecoder().decode((await get(derived)).body)).toBe("answer");
      expect(derived.trust).toBe(`${otherFile} (METAL_CA) + the CA from metal-boot`);
      expect(base.trust).toBe(`${otherFile} (METAL_CA)`);
      expect(await get(base).catch((e: unknown) => e)).toMatchObject({ code: "tls" });
    } finally {
      await base.close();
    }
  });

  test("no CAs: the same client; closing the one it came from closes the derived one", async () => {
    const base = new HttpClient({ caBundle: otherFile, allowHttp: false, log: silentLogger() });
    expect(base.trusting([])).toBe(base);
    const derived = base.trusting([{ pem: ca.pem, name: "the CA from metal-boot" }]);
    expect((await get(derived)).status).toBe(200);
    await base.close();
    expect(
      await get(derived).then(
        () => "answered",
        () => "closed",
      ),
    ).toBe("closed");
  });
});
