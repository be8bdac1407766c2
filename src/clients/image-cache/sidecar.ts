/**
 * The image's checksum sidecars: `<image>.sha512`, `.sha256`, `.md5` (metal-images ship
 * `.md5` beside the image today; metal-stack/metal-hammer@ec148e3 cmd/image/image.go:32
 * Pull reads `<image>.md5`, :113 its first word). All three are asked
 * for; the strongest present wins and is the one hashed while the image streams.
 * "Not there" is 404, 410, or 403 (a bucket without list permission, S3, answers 403 for
 * a missing object); any other answer is an error (`code`: image_download when
 * installing, image_cache when probing the cache; a malformed sidecar: image_checksum
 * when installing).
 */
import { AgentError } from "../../platform/errors.ts";
import type { ErrorCode } from "../../platform/exit-codes.ts";
import type { HttpClient } from "../http/http-client.ts";
import { parseChecksumFile, type Checksum, type ChecksumAlgo } from "./checksum.ts";
import { redactUrl } from "../../platform/log/redact.ts";

/** Answers that mean "no such sidecar". */
export const ABSENT_STATUS: ReadonlySet<number> = new Set([403, 404, 410]);

/** Strongest first. */
export const SIDECAR_ALGOS: readonly ChecksumAlgo[] = ["sha512", "sha256", "md5"];

export interface Sidecars {
  /** The one to verify. */
  readonly use: Checksum;
  /** Every sidecar found (for the log). */
  readonly found: readonly Checksum[];
  /** Where `use` came from. */
  readonly url: URL;
}

/** The strongest of the sidecars found, or undefined when there is none. Pure. */
export function strongest(found: readonly Checksum[]): Checksum | undefined {
  for (const algo of SIDECAR_ALGOS) {
    const c = found.find((f) => f.algo === algo);
    if (c) return c;
  }
  return undefined;
}

export async function fetchSidecars(http: HttpClient, image: URL, code: Extract<ErrorCode, "image_download" | "image_cache"> = "image_download"): Promise<Sidecars> {
  const results = await Promise.all(
    SIDECAR_ALGOS.map(async (algo) => {
      const url = new URL(`${image.href}.${algo}`);
      const what = `image checksum (.${algo})`;
      let res;
      try {
        res = await http.request({ method: "GET", url, what, maxBytes: 64 << 10 });
      } catch (e) {
        throw new AgentError(code, `${what}: GET ${redactUrl(url)} failed: ${(e as Error).message}`, { url: redactUrl(url) }, { cause: e });
      }
      if (ABSENT_STATUS.has(res.status)) return { algo, status: res.status };
      if (res.status !== 200)
        throw new AgentError(code, `${what}: GET ${redactUrl(url)} answered ${res.status} after ${res.attempts} attempt(s)`, { url: redactUrl(url), status: res.status });
      const parsed = parseChecksumFile(new TextDecoder().decode(res.body), algo);
      if ("error" in parsed) throw new AgentError(code === "image_cache" ? code : "image_checksum", `${what}: ${redactUrl(url)}: ${parsed.error}`, { url: redactUrl(url) });
      return parsed;
    }),
  );
  const found = results.filter((c): c is Checksum => "hex" in c);
  const use = strongest(found);
  if (!use) {
    const answers = results.map((r) => `.${r.algo} ${"status" in r ? r.status : "?"}`).join(", ");
    throw new AgentError(code, `image: no checksum sidecar next to ${redactUrl(image)} (${answers}); an image is never installed unverified`, { url: redactUrl(image) });
  }
  return { use, found, url: new URL(`${image.href}.${use.algo}`) };
}
