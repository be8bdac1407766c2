/**
 * Probes the image cache: HEAD on the image (size, latency) and its checksum sidecar
 * (.sha256 preferred, .md5 as metal-images ship it). `verifyImage` downloads the image
 * and checks size and digest while streaming (nothing is kept).
 */
import { createHash } from "node:crypto";
import { AgentError } from "../errors.ts";
import type { HttpClient } from "../http/client.ts";
import { redactUrl } from "../log/redact.ts";
import { parseChecksumFile, type Checksum, type ChecksumAlgo } from "./checksum.ts";

export interface ImageProbe {
  readonly url: string;
  readonly size: number | undefined;
  readonly checksum: Checksum;
  readonly checksumUrl: string;
  readonly latencyMs: number;
  readonly address: string | undefined;
}

async function fetchChecksum(http: HttpClient, url: URL): Promise<{ checksum: Checksum; url: URL }> {
  const misses: string[] = [];
  for (const algo of ["sha256", "md5"] as const satisfies readonly ChecksumAlgo[]) {
    const u = new URL(`${url.href}.${algo}`);
    const res = await http.request({ method: "GET", url: u, what: `image checksum (.${algo})`, maxBytes: 64 << 10 });
    if (res.status === 404) {
      misses.push(`${redactUrl(u)}: 404`);
      continue;
    }
    if (res.status !== 200) throw new AgentError("image_cache", `image cache: GET ${redactUrl(u)} answered ${res.status} after ${res.attempts} attempt(s)`, { url: redactUrl(u), status: res.status });
    const parsed = parseChecksumFile(new TextDecoder().decode(res.body), algo);
    if ("error" in parsed) throw new AgentError("image_cache", `image cache: ${redactUrl(u)}: ${parsed.error}`, { url: redactUrl(u) });
    return { checksum: parsed, url: u };
  }
  throw new AgentError("image_cache", `image cache: no checksum sidecar for ${redactUrl(url)} (${misses.join(", ")})`, { url: redactUrl(url) });
}

export async function probeImage(http: HttpClient, url: URL): Promise<ImageProbe> {
  const head = await http.request({ method: "HEAD", url, what: "image cache (HEAD image)" });
  if (head.status !== 200) throw new AgentError("image_cache", `image cache: HEAD ${redactUrl(url)} answered ${head.status} after ${head.attempts} attempt(s)`, { url: redactUrl(url), status: head.status });
  const len = head.headers["content-length"];
  const size = len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined;
  const { checksum, url: checksumUrl } = await fetchChecksum(http, url);
  return { url: redactUrl(url), size, checksum, checksumUrl: redactUrl(checksumUrl), latencyMs: head.latencyMs, address: head.address };
}

export interface ImageVerify {
  readonly bytes: number;
  readonly digest: string;
  readonly ms: number;
}

/** Downloads the image, hashing as it streams; a short body or a digest mismatch is an image_cache error. */
export async function verifyImage(http: HttpClient, probe: ImageProbe, url: URL): Promise<ImageVerify> {
  const t0 = performance.now();
  const req = { method: "GET" as const, url, what: "image cache (download image)" };
  const res = await http.stream(req);
  if (res.status !== 200) throw new AgentError("image_cache", `image cache: GET ${redactUrl(url)} answered ${res.status}`, { url: redactUrl(url), status: res.status });
  const hash = createHash(probe.checksum.algo);
  let bytes = 0;
  try {
    for await (const c of res.body) {
      hash.update(c);
      bytes += c.byteLength;
      // Bounded by what HEAD announced: an endless body is not read to the end of time.
      if (probe.size !== undefined && bytes > probe.size) throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is larger than the ${probe.size} bytes HEAD announced`, { url: redactUrl(url), size: probe.size });
    }
  } catch (e) {
    if (e instanceof AgentError) throw e;
    throw new AgentError("image_cache", `image cache: download of ${redactUrl(url)} broke off after ${bytes} bytes: ${(e as Error).message}`, { url: redactUrl(url), bytes }, { cause: e });
  }
  if (probe.size !== undefined && bytes !== probe.size) {
    throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is truncated: got ${bytes} of ${probe.size} bytes`, { url: redactUrl(url), bytes, size: probe.size });
  }
  const digest = hash.digest("hex");
  if (digest !== probe.checksum.hex) {
    throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is corrupted: ${probe.checksum.algo} ${digest}, expected ${probe.checksum.hex} (from the sidecar)`, { url: redactUrl(url), digest, expected: probe.checksum.hex });
  }
  return { bytes, digest, ms: Math.round(performance.now() - t0) };
}

/** HEAD + checksum sidecar of one image (+ download when `verify`): `reach --image`. */
export async function probeOneImage(http: HttpClient, url: URL, verify = false): Promise<{ probe: ImageProbe; verified: ImageVerify | undefined }> {
  const probe = await probeImage(http, url);
  return { probe, verified: verify ? await verifyImage(http, probe, url) : undefined };
}
