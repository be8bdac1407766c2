/**
 * The checksum sidecars next to an image (src/clients/image-cache/sidecar.ts), against a loopback
 * server: the strongest present wins; 404, 410 and 403 (S3 answers 403 for a missing
 * object in a bucket without list permission) mean "not there"; any other answer, or
 * none at all, is an error with the code of the caller (install or cache probe).
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AgentError } from "../../../src/platform/errors.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { fetchSidecars, strongest } from "../../../src/clients/image-cache/sidecar.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";

const MD5 = "d41d8cd98f00b204e9800998ecf8427e";
const SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/** path -> [status, body] */
const answers: Record<string, [number, string]> = {
  "/md5-only/img.tar.lz4.md5": [200, `${MD5}\n`],
  "/s3/img.tar.lz4.md5": [200, `${MD5}  img.tar.lz4\n`],
  "/s3/img.tar.lz4.sha256": [200, `${SHA256}  img.tar.lz4\n`],
  "/s3/img.tar.lz4.sha512": [403, "<Error><Code>AccessDenied</Code></Error>"],
  "/none/img.tar.lz4.sha512": [403, "denied"],
  "/none/img.tar.lz4.sha256": [410, "gone"],
  "/broken/img.tar.lz4.sha512": [401, "who are you"],
  "/broken/img.tar.lz4.md5": [200, `${MD5}\n`],
};
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const [status, body] = answers[new URL(req.url).pathname] ?? [404, "not found"];
    return new Response(body, { status });
  },
});
const http = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log: silentLogger(), retry: { attempts: 1, baseMs: 1, capMs: 1, totalMs: 1_000 } });
afterAll(async () => {
  await http.close();
  server.stop(true);
});
const image = (dir: string) => new URL(`/${dir}/img.tar.lz4`, server.url);

describe("sidecars next to an image", () => {
  test("the strongest sidecar wins", () => {
    const md5 = { algo: "md5" as const, hex: "a".repeat(32) };
    const sha256 = { algo: "sha256" as const, hex: "b".repeat(64) };
    const sha512 = { algo: "sha512" as const, hex: "c".repeat(128) };
    expect(strongest([md5, sha256])).toBe(sha256);
    expect(strongest([md5, sha512, sha256])).toBe(sha512);
    expect(strongest([md5])).toBe(md5);
    expect(strongest([])).toBeUndefined();
  });

  test("metal-images' bare .md5 alone is used", async () => {
    const s = await fetchSidecars(http, image("md5-only"));
    expect(s.use).toEqual({ algo: "md5", hex: MD5 });
    expect(s.url.href).toBe(`${image("md5-only").href}.md5`);
  });

  test("a 403 for a missing sidecar (S3 without list permission) is 'not there': sha256 wins over md5", async () => {
    const s = await fetchSidecars(http, image("s3"));
    expect(s.use).toEqual({ algo: "sha256", hex: SHA256 });
    expect(s.found.map((c) => c.algo)).toEqual(["sha256", "md5"]);
  });

  test("none there: the error lists every answer, with the caller's code", async () => {
    for (const code of ["image_download", "image_cache"] as const) {
      const e = (await fetchSidecars(http, image("none"), code).catch((x: unknown) => x)) as AgentError;
      expect(e.code).toBe(code);
      expect(e.message).toContain("no checksum sidecar next to");
      expect(e.message).toContain("(.sha512 403, .sha256 410, .md5 404); an image is never installed unverified");
    }
  });

  test("any other answer is an error naming the sidecar and the status, also when a weaker one is there", async () => {
    const e = (await fetchSidecars(http, image("broken")).catch((x: unknown) => x)) as AgentError;
    expect(e.code).toBe("image_download");
    expect(e.exitCode).toBe(50);
    expect(e.message).toMatch(/image checksum \(\.sha512\): GET .*\/broken\/img\.tar\.lz4\.sha512 answered 401/);
  });
});
