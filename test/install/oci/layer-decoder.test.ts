import { describe, expect, test } from "bun:test";
import { gzipSync, zstdCompressSync } from "node:zlib";
import { BadStreamError } from "../../../src/install/extract.ts";
import { layerDecoder } from "../../../src/install/oci/layer-decoder.ts";
import { TarScanner } from "../../../src/install/oci/tar-scan.ts";
import { tarArchive } from "../../helpers/tar-writer.ts";

/** A tar of `n` files of 100 KiB each (~n*100 KiB of tar bytes). */
function tarOf(n: number): Uint8Array {
  return tarArchive(Array.from({ length: n }, (_, i) => ({ name: `d/f${i}`, data: new Uint8Array(100 << 10).fill(i & 0xff) })));
}

async function decode(kind: "gzip" | "zstd" | "none", bytes: Uint8Array, chunk: number, slowSink = false) {
  const names: string[] = [];
  const scanner = new TarScanner((m) => names.push(m.path));
  const d = layerDecoder(kind, scanner, "layer 1");
  const out: Uint8Array[] = [];
  let largest = 0;
  const sink = async (b: Uint8Array) => {
    largest = Math.max(largest, b.byteLength);
    out.push(b.slice());
    if (slowSink) await new Promise((r) => setImmediate(r));
  };
  for (let i = 0; i < bytes.byteLength; i += chunk) await d.push(bytes.subarray(i, i + chunk), sink);
  await d.finish(sink);
  d.close();
  return { tar: Buffer.concat(out), names, largest, ended: scanner.ended };
}

describe("an OCI layer into the tar stream, its members scanned", () => {
  const tar = tarOf(40);
  for (const [kind, packed] of [
    ["none", tar],
    ["gzip", gzipSync(tar)],
    ["zstd", zstdCompressSync(tar)],
  ] as const) {
    test(`${kind}: the exact tar bytes come out, in runs of at most 256 KiB, every member seen (chunks of 1000 bytes, a slow sink)`, async () => {
      const r = await decode(kind, packed, 1000, true);
      expect(Buffer.compare(r.tar, Buffer.from(tar))).toBe(0);
      expect(r.names).toEqual(Array.from({ length: 40 }, (_, i) => `d/f${i}`));
      expect(r.ended).toBe(true);
      expect(r.tar.byteLength).toBeGreaterThan(3 << 20);
      expect(r.largest).toBeLessThanOrEqual(kind === "none" ? 1000 : 256 << 10);
    });
  }

  test("a gzip stream cut short, or a flipped byte, is a bad stream naming the layer", async () => {
    const gz = gzipSync(tar);
    const cut = await decode("gzip", gz.subarray(0, gz.byteLength - 20), 4096).catch((e) => e);
    expect(cut).toBeInstanceOf(BadStreamError);
    expect((cut as Error).message).toStartWith("layer 1: gzip: ");
    const flipped = Buffer.from(gz);
    flipped[100] = (flipped[100] as number) ^ 0xff;
    expect(await decode("gzip", flipped, 4096).catch((e) => e)).toBeInstanceOf(BadStreamError);
  });

  test("bytes that are not a tar: the member scan stops the stream (a header field that is no number)", async () => {
    const junk = new Uint8Array(4096).fill(0x41);
    const e = await decode("none", junk, 4096).catch((x) => x);
    expect(e).toBeInstanceOf(BadStreamError);
    expect((e as Error).message).toBe('layer 1: bad numeric field "AAAAAAAA" in a tar header');
  });

  test("a sink that throws (tar gone) is thrown as it is, not as a bad stream", async () => {
    const d = layerDecoder("gzip", new TarScanner(() => {}), "layer 1");
    const gone = new Error("tar stopped reading");
    const gz = gzipSync(tar);
    const e = await (async () => {
      for (let i = 0; i < gz.byteLength; i += 4096) await d.push(gz.subarray(i, i + 4096), async () => Promise.reject(gone));
      await d.finish(async () => Promise.reject(gone));
    })().catch((x) => x);
    d.close();
    expect(e).toBe(gone);
  });
});
