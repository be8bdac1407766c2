/**
 * Probes the image cache: HEAD on the image (size, latency) and its checksum sidecar
 * (the strongest of .sha512, .sha256, .md5, as the install picks it: sidecar.ts).
 * `verifyImage` downloads the image and checks size and digest while streaming
 * (nothing is kept).
 */
import { createHash } from "node:crypto";
import { AgentError } from "../../platform/errors.ts";
import type { HttpClient } from "../http/http-client.ts";
import { redactUrl } from "../../platform/log/redact.ts";
import type { Checksum } from "./checksum.ts";
import { fetchSidecars } from "./sidecar.ts";

export interface ImageProbe {
  readonly url: string;
  readonly size: number | undefined;
  readonly checksum: Checksum;
  readonly checksumUrl: string;
  readonly latencyMs: number;
  readonly address: string | undefined;
}

export async function probeImage(http: HttpClient, url: URL): Promise<ImageProbe> {
  const head = await http.request({ method: "HEAD", url, what: "image cache (HEAD image)" });
  if (head.status !== 200)
    throw new AgentError("image_cache", `image cache: HEAD ${redactUrl(url)} answered ${head.status} after ${head.attempts} attempt(s)`, {
      url: redactUrl(url),
      status: head.status,
    });
  const len = head.headers["content-length"];
  const size = len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined;
  const { use: checksum, url: checksumUrl } = await fetchSidecars(http, url, "image_cache");
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
      if (probe.size !== undefined && bytes > probe.size)
        throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is larger than the ${probe.size} bytes HEAD announced`, { url: redactUrl(url), size: probe.size });
    }
  } catch (e) {
    if (e instanceof AgentError) throw e;
    throw new AgentError(
      "image_cache",
      `image cache: download of ${redactUrl(url)} broke off after ${bytes} bytes: ${(e as Error).message}`,
      { url: redactUrl(url), bytes },
      { cause: e },
    );
  }
  if (probe.size !== undefined && bytes !== probe.size) {
    throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is truncated: got ${bytes} of ${probe.size} bytes`, { url: redactUrl(url), bytes, size: probe.size });
  }
  const digest = hash.digest("hex");
  if (digest !== probe.checksum.hex) {
    throw new AgentError("image_cache", `image cache: ${redactUrl(url)} is corrupted: ${probe.checksum.algo} ${digest}, expected ${probe.checksum.hex} (from the sidecar)`, {
      url: redactUrl(url),
      digest,
      expected: probe.checksum.hex,
    });
  }
  return { bytes, digest, ms: Math.round(performance.now() - t0) };
}

/** HEAD + checksum sidecar of one image (+ download when `verify`): `reach --image`. */
export async function probeOneImage(http: HttpClient, url: URL, verify = false): Promise<{ probe: ImageProbe; verified: ImageVerify | undefined }> {
  const probe = await probeImage(http, url);
  return { probe, verified: verify ? await verifyImage(http, probe, url) : undefined };
}
