/**
 * Stage "image": the image cache answers. With an image path from metal-boot: HEAD
 * the image and read its checksum sidecar; without one: any HTTP answer from the
 * cache's base URL counts.
 */
import { AgentError } from "../errors.ts";
import { imageUrl, probeImage } from "../image/probe.ts";
import { logEvent } from "../log/logger.ts";
import { redactUrl } from "../log/redact.ts";
import { need } from "./need.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const imageStage: Stage = {
  name: "image",
  describe: "probe the image cache",
  async run(config, deps, state) {
    const boot = need(state, "boot", "image", "boot");
    const { http } = services(config, deps);
    if (boot.imagePath === undefined) {
      const res = await http.request({ method: "HEAD", url: boot.imageCacheUrl, what: "image cache (base URL)" });
      if (res.status >= 500) throw new AgentError("image_cache", `image cache: HEAD ${redactUrl(boot.imageCacheUrl)} answered ${res.status}`, { status: res.status });
      state.image = { url: redactUrl(boot.imageCacheUrl), size: undefined, checksum: undefined, latencyMs: res.latencyMs, address: res.address };
    } else {
      const p = await probeImage(http, imageUrl(boot.imageCacheUrl, boot.imagePath));
      state.image = { url: p.url, size: p.size, checksum: `${p.checksum.algo}:${p.checksum.hex}`, latencyMs: p.latencyMs, address: p.address };
    }
    logEvent(deps.log, "image.probe", { ...state.image, address: state.image.address ?? null, size: state.image.size ?? null, checksum: state.image.checksum ?? null });
  },
};
