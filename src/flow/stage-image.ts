/**
 * Stage "image": the image cache answers. With an image path from metal-boot: HEAD
 * the image and read its checksum sidecar; without one: any HTTP answer below 500 from
 * the cache's base URL counts.
 */
import { probeImageCache } from "../image/probe.ts";
import { logEvent } from "../log/logger.ts";
import { need } from "./need.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const imageStage: Stage = {
  name: "image",
  describe: "probe the image cache",
  async run(config, deps, state) {
    const boot = need(state, "boot", "image", "boot");
    const p = await probeImageCache(services(config, deps).http, boot.imageCacheUrl, boot.imagePath);
    state.image = { url: p.url, size: p.size, checksum: p.checksum, latencyMs: p.latencyMs, address: p.address };
    logEvent(deps.log, "image.probe", { url: p.url, size: p.size ?? null, checksum: p.checksum ?? null, latencyMs: p.latencyMs, address: p.address ?? null });
  },
};
