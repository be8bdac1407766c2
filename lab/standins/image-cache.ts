/**
 * Image cache stand-in: one small image under <os>/<version>/img.tar.lz4 with .sha256
 * and .md5 sidecars beside it, resumable (`Range: bytes=N-` answered 206 with its
 * Content-Range, as metal-image-cache-sync's file server does). Faults: an HTTP status,
 * slow answers, a truncated or corrupted image, a missing .sha256; the drop window
 * (image-drop.ts) is the server's (image-server.ts); and `trickle`: the first `times` GETs
 * of the image get `afterBytes` at once, then TRICKLE_CHUNK every TRICKLE_EVERY_MS and
 * never the last byte (a download that does not end until the client goes away, so a
 * power loss lands mid-stream; later GETs get the whole image). The trickle stays above
 * the agent's too-slow bound (64 KiB a minute, src/install/image.ts) and ends after
 * TRICKLE_MAX_MS.
 */
import { createHash, randomBytes } from "node:crypto";
import type { FaultBox } from "./faults.ts";

export const IMAGE_PATH = "debian/12/img.tar.lz4";

export interface ImageTrickle {
  /** Bytes sent at once. */
  readonly afterBytes: number;
  /** How many GETs of the image still get the trickle. */
  times: number;
}

export interface ImageCacheOptions {
  readonly faults: FaultBox;
  readonly image: Uint8Array;
  readonly trickle?: ImageTrickle;
}

export const TRICKLE_CHUNK = 4096;
export const TRICKLE_EVERY_MS = 250;
export const TRICKLE_MAX_MS = 300_000;

/** The image's first `afterBytes`, then a chunk at an interval, never the last one; errors after TRICKLE_MAX_MS. */
function trickleBody(image: Uint8Array, afterBytes: number): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  let sent = Math.min(afterBytes, image.byteLength - 1);
  const started = Date.now();
  return new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(image.slice(0, sent));
      timer = setInterval(() => {
        if (Date.now() - started > TRICKLE_MAX_MS) {
          clearInterval(timer);
          c.error(new Error("stand-in trickle: bound reached"));
          return;
        }
        const next = Math.min(sent + TRICKLE_CHUNK, image.byteLength - 1);
        if (next > sent) c.enqueue(image.slice(sent, next));
        sent = next;
      }, TRICKLE_EVERY_MS);
    },
    cancel() {
      clearInterval(timer);
    },
  });
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
    const size = o.image.byteLength;
    const headers: Record<string, string> = { "content-length": String(size), "content-type": "application/octet-stream", "accept-ranges": "bytes" };
    if (req.method === "HEAD") return new Response(null, { headers });
    let image = o.image;
    if (f.corrupt) {
      image = o.image.slice();
      for (let i = 0; i < image.length; i += 4096) image[i] = (image[i] ?? 0) ^ 0xff;
    }
    const start = rangeStart(req.headers.get("range"), size);
    if (start === "unsatisfiable") return new Response(null, { status: 416, headers: { "content-range": `bytes */${size}` } });
    let status = 200;
    if (start !== undefined) {
      status = 206;
      image = image.subarray(start);
      headers["content-range"] = `bytes ${start}-${size - 1}/${size}`;
      headers["content-length"] = String(image.byteLength);
    }
    if (o.trickle && o.trickle.times > 0) {
      o.trickle.times -= 1;
      return new Response(trickleBody(image, o.trickle.afterBytes), { status, headers });
    }
    // Truncated: half the body under the full Content-Length; the server closes the connection after it (image-server.ts).
    if (f.truncate) image = image.subarray(0, image.byteLength >> 1);
    return new Response(image, { status, headers });
  };
}

/** `Range: bytes=N-` -> N; no (or another kind of) Range -> undefined (the whole image); N past the end -> unsatisfiable. Pure. */
export function rangeStart(range: string | null, size: number): number | undefined | "unsatisfiable" {
  const m = range === null ? null : /^bytes=(\d+)-$/.exec(range.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return n >= size ? "unsatisfiable" : n;
}
