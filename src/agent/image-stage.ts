/**
 * Stage "image": the image cache answers (HEAD of its base URL over TLS, any answer
 * below 500). No cache configured: skipped with one info line.
 */
import type { Boot } from "../clients/metal-boot/boot.ts";
import { probeCacheBase, type CacheReach } from "../clients/image-cache/cache.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { BootedServices } from "./boot-facts.ts";

/** What the `image` stage uses of the services (a test fakes only this). */
export type ImageServices = Pick<BootedServices, "http" | "log">;

export async function image(boot: Boot, s: ImageServices): Promise<CacheReach | undefined> {
  if (!boot.imageCacheUrl) {
    logEvent(s.log, "image.skip", {}, "no image cache configured (METAL_IMAGE_CACHE_URL, or image_cache_url from metal-boot): probe skipped; images download from their own URL");
    return undefined;
  }
  const p = await probeCacheBase(s.http, boot.imageCacheUrl);
  logEvent(s.log, "image.probe", { url: p.url, status: p.status, latencyMs: p.latencyMs, address: p.address ?? null });
  return p;
}
