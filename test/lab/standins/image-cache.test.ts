/**
 * The image cache stand-in's trickle (the power-loss e2e's fault): the first GET of the
 * image gets its first bytes at once and then a trickle that never reaches the end;
 * the next GET gets the whole image. The handler is called directly (no server).
 */
import { describe, expect, test } from "bun:test";
import { FaultBox } from "../../../lab/standins/faults.ts";
import { IMAGE_PATH, imageCacheHandler, makeImage, TRICKLE_CHUNK, TRICKLE_EVERY_MS } from "../../../lab/standins/image-cache.ts";
import { waitFor } from "../../../lab/base/wait.ts";

const url = `https://cache.test/${IMAGE_PATH}`;

describe("image cache stand-in: trickle", () => {
  test("the first GET gets afterBytes at once, then chunks, never the last byte; the second GET gets the whole image", async () => {
    const image = makeImage(64 << 10);
    const trickle = { afterBytes: 16 << 10, times: 1 };
    const h = imageCacheHandler({ faults: new FaultBox(), image, trickle });
    const first = await h(new Request(url));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-length")).toBe(String(image.byteLength));
    expect(trickle.times).toBe(0);
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    const head = await reader.read();
    expect(head.value?.byteLength).toBe(16 << 10);
    // The next chunk comes after the interval, the image's next bytes.
    const t0 = performance.now();
    const next = await reader.read();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(TRICKLE_EVERY_MS * 0.8);
    expect(next.value?.byteLength).toBe(TRICKLE_CHUNK);
    expect(next.value).toEqual(image.slice(16 << 10, (16 << 10) + TRICKLE_CHUNK));
    await reader.cancel();

    const second = await h(new Request(url));
    expect(Buffer.from(await second.arrayBuffer()).equals(Buffer.from(image))).toBe(true);
  });

  test("a trickle stops one byte short of the end (the body never completes by itself)", async () => {
    const image = makeImage(3 * TRICKLE_CHUNK);
    const h = imageCacheHandler({ faults: new FaultBox(), image, trickle: { afterBytes: TRICKLE_CHUNK, times: 1 } });
    const reader = ((await h(new Request(url))).body as ReadableStream<Uint8Array>).getReader();
    let got = 0;
    await waitFor(
      async () => {
        const r = await reader.read();
        got += r.value?.byteLength ?? 0;
        return got >= image.byteLength - 1;
      },
      10 * TRICKLE_EVERY_MS,
      "the trickle to reach the image's last byte but one",
      1,
    );
    expect(got).toBe(image.byteLength - 1);
    // Nothing more comes: the next read is still pending after two intervals.
    const more = await Promise.race([reader.read().then(() => "more"), Bun.sleep(2 * TRICKLE_EVERY_MS + 50).then(() => "pending")]);
    expect(more).toBe("pending");
    await reader.cancel();
  });
});
