/**
 * The image cache (metal-image-cache-sync): where downloads go and whether it answers.
 * Its base URL comes from METAL_IMAGE_CACHE_URL, else metal-boot's `image_cache_url`
 * extension; unset, images come from their own URL. An image URL from the
 * allocation (MachineAllocation.image.url, e.g.
 * https://images.metal-stack.io/metal-os/debian/12/img.tar.lz4) maps to the same path
 * under the cache base. Pure except `probeCacheBase`.
 */
import { AgentError } from "../../platform/errors.ts";
import type { HttpClient } from "../http/http-client.ts";
import { redactUrl } from "../../platform/log/redact.ts";

/** A path ("debian/12/img.tar.lz4" or "/metal-os/...") under the cache base, the base's own path kept as a prefix. */
export function cachePath(base: URL, path: string): URL {
  const out = new URL(base.href);
  out.pathname = `${base.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  out.search = "";
  out.hash = "";
  return out;
}

/** The image URL's path under the cache base; its query and fragment dropped. */
export function cacheUrlFor(base: URL, imageUrl: string): URL {
  if (!URL.canParse(imageUrl)) throw new AgentError("bad_answer", `image URL ${JSON.stringify(imageUrl.slice(0, 200))}: expected an absolute URL`, {});
  return cachePath(base, new URL(imageUrl).pathname);
}

/** The URL an image is downloaded from: through the cache when there is one. */
export const downloadUrl = (cache: URL | undefined, imageUrl: string): URL => (cache ? cacheUrlFor(cache, imageUrl) : new URL(imageUrl));

export interface CacheReach {
  readonly url: string;
  readonly status: number;
  readonly latencyMs: number;
  readonly address: string | undefined;
}

/** HEAD of the base URL over TLS (verified by the HttpClient): any answer below 500 means it is there. */
export async function probeCacheBase(http: HttpClient, base: URL): Promise<CacheReach> {
  const res = await http.request({ method: "HEAD", url: base, what: "image cache (base URL)" });
  if (res.status >= 500)
    throw new AgentError("image_cache", `image cache: HEAD ${redactUrl(base)} answered ${res.status} after ${res.attempts} attempt(s)`, { status: res.status });
  return { url: redactUrl(base), status: res.status, latencyMs: res.latencyMs, address: res.address };
}
