/**
 * Image cache stand-in: one small image under <os>/<version>/img.tar.lz4 with .sha256
 * and .md5 sidecars beside it. Faults: an HTTP status, slow answers, a truncated or
 * corrupted image, a missing .sha256.
 */
import { createHash, randomBytes } from "node:crypto";
import type { FaultBox } from "./faults.ts";

export const IMAGE_PATH = "debian/12/img.tar.lz4";

export interface ImageCacheOptions {
  readonly faults: FaultBox;
  readonly image: Uint8Array;
}

export function makeImage(size = 256 << 10): Uint8Array {
  return new Uint8Array(randomBytes(size));
}

export function imageCacheHandler(o: ImageCacheOptions) {
  const sha256 = createHash("sha256").update(o.image).digest("hex");
  const md5 = createHash("md5").update(o.image).digest("hex");
  return async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname.replace(/^\//, "");
    const f = o.faults.take();
    if (f.slowMs) await Bun.sleep(f.slowMs);
    if (f.status) return new Response("stand-in fault\n", { status: f.status });
    if (path === "" || path.endsWith("/")) return new Response("image cache stand-in\n");
    if (path === `${IMAGE_PATH}.sha256`) return o.faults.standing.hideSha256 ? new Response("not found\n", { status: 404 }) : new Response(`${sha256}  img.tar.lz4\n`);
    if (path === `${IMAGE_PATH}.md5`) return new Response(`${md5}\n`);
    if (path !== IMAGE_PATH) return new Response("not found\n", { status: 404 });
    const headers = { "content-length": String(o.image.byteLength), "content-type": "application/octet-stream" };
    if (req.method === "HEAD") return new Response(null, { headers });
    if (f.corrupt) {
      const bad = o.image.slice();
      for (let i = 0; i < bad.length; i += 4096) bad[i] = (bad[i] ?? 0) ^ 0xff;
      return new Response(bad, { headers });
    }
    if (f.truncate) {
      const half = o.image.slice(0, o.image.byteLength >> 1);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(half);
          c.close();
        },
      });
      return new Response(stream, { headers });
    }
    return new Response(o.image, { headers });
  };
}
