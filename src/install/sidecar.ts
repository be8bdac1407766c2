/**
 * The image's checksum sidecars: `<image>.sha512`, `.sha256`, `.md5` (metal-images ship
 * `.md5` today: ../shared/FIELD-NOTES.md §6 image cache layout; metal-hammer's
 * cmd/image/image.go Pull reads `<image>.md5`, its first word). All three are asked
 * for; the strongest present wins and is the one hashed while the image streams.
 */
import { AgentError } from "../errors.ts";
import type { HttpClient } from "../http/client.ts";
import { parseChecksumFile, type Checksum, type ChecksumAlgo } from "../image/checksum.ts";
import { redactUrl } from "../log/redact.ts";

/** Strongest first. */
export const SIDECAR_ALGOS: readonly ChecksumAlgo[] = ["sha512", "sha256", "md5"];

export interface Sidecars {
  /** The one to verify. */
  readonly use: Checksum;
  /** Every sidecar found (for the log). */
  readonly found: readonly Checksum[];
}

/** The strongest of the sidecars found, or undefined when there is none. Pure. */
export function strongest(found: readonly Checksum[]): Checksum | undefined {
  for (const algo of SIDECAR_ALGOS) {
    const c = found.find((f) => f.algo === algo);
    if (c) return c;
  }
  return undefined;
}

export async function fetchSidecars(http: HttpClient, image: URL): Promise<Sidecars> {
  const results = await Promise.all(
    SIDECAR_ALGOS.map(async (algo) => {
      const url = new URL(`${image.href}.${algo}`);
      const what = `image checksum (.${algo})`;
      let res;
      try {
        res = await http.request({ method: "GET", url, what, maxBytes: 64 << 10 });
      } catch (e) {
        throw new AgentError("image_download", `${what}: GET ${redactUrl(url)} failed: ${(e as Error).message}`, { url: redactUrl(url) }, { cause: e });
      }
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new AgentError("image_download", `${what}: GET ${redactUrl(url)} answered ${res.status} after ${res.attempts} attempt(s)`, { url: redactUrl(url), status: res.status });
      const parsed = parseChecksumFile(new TextDecoder().decode(res.body), algo);
      if ("error" in parsed) throw new AgentError("image_checksum", `${what}: ${redactUrl(url)}: ${parsed.error}`, { url: redactUrl(url) });
      return parsed;
    }),
  );
  const found = results.filter((c): c is Checksum => c !== undefined);
  const use = strongest(found);
  if (!use) throw new AgentError("image_download", `image: no checksum sidecar next to ${redactUrl(image)} (asked for ${SIDECAR_ALGOS.map((a) => "." + a).join(", ")}: all 404); an image is never installed unverified`, { url: redactUrl(image) });
  return { use, found };
}
