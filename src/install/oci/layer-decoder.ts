/**
 * An OCI layer's bytes into the tar stream GNU tar reads (extract.ts StreamDecoder):
 * gzip or zstd decompressed by the runtime's zlib (node:zlib, zstd since Bun 1.2), or
 * passed as they are; every tar byte also goes through the member scanner (tar-scan.ts)
 * for the whiteout plan. Backpressure as with LZ4: the decompressor's output is handed
 * on one run at a time and awaited, so a full tar pipe stops the decompressor and then
 * the download. Output runs of 256 KiB (zlib's default of 16 KiB would be 65 000 pipe
 * writes per GiB, docs/install.md "Throughput").
 */
import { createGunzip, createZstdDecompress } from "node:zlib";
import type { Transform } from "node:stream";
import { BadStreamError, type StreamDecoder } from "../extract.ts";
import type { Lz4Sink } from "../lz4-frame.ts";
import type { LayerCompression } from "./manifest.ts";
import { TarScanError, type TarScanner } from "./tar-scan.ts";

const OUT_CHUNK = 256 << 10;

export function layerDecoder(compression: LayerCompression, scanner: TarScanner, what: string): StreamDecoder {
  const scan = (b: Uint8Array): void => {
    try {
      scanner.push(b);
    } catch (e) {
      if (e instanceof TarScanError) throw new BadStreamError(`${what}: ${e.message}`);
      throw e;
    }
  };
  if (compression === "none") {
    return {
      push: async (chunk, out) => {
        scan(chunk);
        await out(chunk);
      },
      finish: () => {},
      close: () => {},
    };
  }
  return zlibDecoder(compression === "gzip" ? createGunzip({ chunkSize: OUT_CHUNK }) : createZstdDecompress({ chunkSize: OUT_CHUNK }), compression, scan, what);
}

function zlibDecoder(z: Transform, kind: string, scan: (b: Uint8Array) => void, what: string): StreamDecoder {
  let failure: Error | undefined;
  /** What the sink (tar's pipe) threw: tar is gone, not a bad stream. */
  let sinkError: unknown;
  let sink: Lz4Sink | undefined;
  let closed = false;
  const bad = (e: unknown): Error => (e instanceof BadStreamError ? e : new BadStreamError(`${what}: ${kind}: ${(e as Error).message ?? String(e)}`));
  // Errors arrive as events; kept, and answered by the next push or finish.
  z.on("error", (e) => (failure ??= bad(e)));
  /** Reads the decompressor's output and hands each run on (awaited: backpressure), until it ends. */
  const pump = (async () => {
    try {
      for await (const run of z as AsyncIterable<Uint8Array>) {
        if (closed) return;
        scan(run);
        try {
          await (sink as Lz4Sink)(run);
        } catch (e) {
          sinkError ??= e;
          z.destroy();
          return;
        }
      }
    } catch (e) {
      failure ??= bad(e);
    }
  })();
  /** Resolves once the decompressor took `chunk` (waits for 'drain' when its buffer is full), rejects on a failure. */
  const check = (): void => {
    if (sinkError !== undefined) throw sinkError;
    if (failure) throw failure;
  };
  /** Resolves once the decompressor took `chunk` ('drain' when its buffer was full); rejects when it failed or stopped. */
  const write = (chunk: Uint8Array): Promise<void> =>
    new Promise((resolve, reject) => {
      if (z.destroyed) return reject(sinkError ?? failure ?? new BadStreamError(`${what}: ${kind} stopped`));
      let settled = false;
      const settle = (err?: unknown) => {
        if (settled) return;
        settled = true;
        z.off("error", onError);
        z.off("drain", onDrain);
        z.off("close", onClose);
        if (err === undefined) resolve();
        else reject(err);
      };
      const onError = () => settle(failure ?? new BadStreamError(`${what}: ${kind} failed`));
      const onDrain = () => settle();
      const onClose = () => settle(sinkError ?? failure ?? new BadStreamError(`${what}: ${kind} stopped`));
      z.on("error", onError);
      z.on("close", onClose);
      const ok = z.write(chunk, (err) => {
        if (ok) settle(err ? (sinkError ?? failure ?? bad(err)) : undefined);
      });
      if (!ok) z.on("drain", onDrain);
    });
  return {
    async push(chunk, out) {
      sink = out;
      check();
      await write(chunk);
      check();
    },
    async finish(out) {
      sink = out;
      check();
      z.end();
      await pump;
      check();
    },
    close() {
      closed = true;
      z.destroy();
    },
  };
}
