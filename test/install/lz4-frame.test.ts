/**
 * The in-process LZ4 frame decoder (src/install/lz4-frame.ts) over Debian's liblz4, with
 * exact frames written by Debian's `lz4` 1.9.4 (`printf hello | lz4 -c`, `lz4 -l`).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { checkLiblz4, Lz4Error, lz4Decoder, type Lz4Decoder } from "../../src/install/lz4-frame.ts";

/** `printf hello | lz4 -c`: magic, FLG 0x64 (v1, independent blocks, content checksum), BD 0x40 (64 KiB), HC, one stored block, end mark, xxh32. */
const HELLO = Buffer.from("04224d186440a70500008068656c6c6f00000000f97700fb", "hex");
/** `printf hello | lz4 -l -c`: the legacy format. */
const HELLO_LEGACY = Buffer.from("02214c18060000005068656c6c6f", "hex");
/** A skippable frame (magic 0x184D2A50, 3 bytes of user data). */
const SKIPPABLE = Buffer.from("502a4d1803000000616263", "hex");

async function decodeAll(d: Lz4Decoder, chunks: readonly Uint8Array[]): Promise<{ bytes: Buffer; runs: number[] }> {
  const parts: Buffer[] = [];
  const runs: number[] = [];
  for (const c of chunks) {
    await d.push(c, async (b) => {
      runs.push(b.byteLength);
      parts.push(Buffer.from(b)); // the decoder reuses its buffer: copy
    });
  }
  d.finish();
  d.close();
  return { bytes: Buffer.concat(parts), runs };
}

const bytewise = (b: Buffer) => [...b].map((x) => Uint8Array.of(x));

async function failure(chunks: readonly Uint8Array[]): Promise<Lz4Error> {
  const e = await decodeAll(lz4Decoder(), chunks).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(Lz4Error);
  return e as Lz4Error;
}

describe("lz4 frame decoder", () => {
  test("liblz4 loads here with frame API version 100", () => {
    expect(checkLiblz4()).toBeUndefined();
  });

  test("decodes a frame whole and fed byte by byte to the same bytes", async () => {
    expect((await decodeAll(lz4Decoder(), [HELLO])).bytes.toString()).toBe("hello");
    expect((await decodeAll(lz4Decoder(), bytewise(HELLO))).bytes.toString()).toBe("hello");
  });

  test("concatenated frames and a skippable frame read as lz4 -d reads them", async () => {
    expect((await decodeAll(lz4Decoder(), [Buffer.concat([HELLO, SKIPPABLE, HELLO])])).bytes.toString()).toBe("hellohello");
    expect((await decodeAll(lz4Decoder(), bytewise(Buffer.concat([HELLO, HELLO])))).bytes.toString()).toBe("hellohello");
  });

  test("a flipped content checksum is refused by name", async () => {
    const bad = Buffer.from(HELLO);
    bad[23]! ^= 1;
    const e = await failure([bad]);
    expect(e.message).toBe("lz4: ERROR_contentChecksum_invalid (at or after compressed byte 0)");
  });

  test("a stream cut inside a frame is refused at its end, naming what is missing", async () => {
    const e = await failure([HELLO.subarray(0, 20)]);
    expect(e.message).toBe("lz4: the stream ended inside a frame (4 more bytes expected) (at or after compressed byte 20)");
  });

  test("an empty stream, a legacy frame, junk and junk after a frame are refused by name", async () => {
    expect((await failure([])).message).toBe("lz4: the stream is empty: no lz4 frame (at or after compressed byte 0)");
    expect((await failure([HELLO_LEGACY])).reason).toBe("the legacy lz4 format (lz4 -l) is not read: the image must be packed with lz4's frame format");
    expect((await failure([Buffer.from("this is no frame")])).reason).toBe("not an lz4 frame: magic 0x73696874, expected 0x184d2204");
    const after = await failure([Buffer.concat([HELLO, Buffer.from("garbage!")])]);
    expect(after.reason).toBe("not an lz4 frame: magic 0x62726167, expected 0x184d2204");
    expect(after.offset).toBe(HELLO.byteLength);
  });

  test("a stream shorter than a magic, or junk fed byte by byte, is named not an lz4 frame; a cut magic after a frame is named so", async () => {
    expect((await failure([Buffer.from("abc")])).reason).toBe("not an lz4 frame: it starts with 61 62 63, not the magic 0x184d2204 (04 22 4d 18)");
    expect((await failure([Buffer.from("04224d", "hex")])).reason).toBe("not an lz4 frame: the stream is 3 byte(s) long, shorter than a frame's 4-byte magic");
    expect((await failure(bytewise(Buffer.from("this is no frame")))).reason).toBe("not an lz4 frame: it starts with 74, not the magic 0x184d2204 (04 22 4d 18)");
    expect((await failure(bytewise(HELLO_LEGACY))).reason).toBe("the legacy lz4 format (lz4 -l) is not read: the image must be packed with lz4's frame format");
    const cut = await failure(bytewise(Buffer.concat([HELLO, Buffer.from("04224d", "hex")])));
    expect(cut.reason).toBe("the stream ended 3 byte(s) into the magic of a frame after the last one");
    expect(cut.offset).toBe(HELLO.byteLength + 3);
    const junk = await failure([HELLO, Buffer.from("ab")]);
    expect(junk.reason).toBe("not an lz4 frame: it starts with 61 62, not the magic 0x184d2204 (04 22 4d 18)");
    expect(junk.offset).toBe(HELLO.byteLength);
  });

  /**
   * `plain` packed by Debian's lz4 with `args`. lz4 1.9.4 itself cannot write 65,533 to
   * 65,535 bytes with `-B4` and a content checksum ("ERROR_dstMaxSize_tooSmall", exit 41:
   * lz4/lz4 issue 1374, fixed after 1.9.4): those are written without the checksum.
   */
  const pack = (plain: Uint8Array, args: readonly string[]) => {
    const lz4Bug = args.includes("-B4") && plain.byteLength >= 65_533 && plain.byteLength <= 65_535 && !args.includes("--no-frame-crc");
    const z = spawnSync("lz4", [...args, ...(lz4Bug ? ["--no-frame-crc"] : []), "-c"], { input: plain, maxBuffer: 64 << 20 });
    expect(z.status).toBe(0);
    return z.stdout;
  };
  /** `n` bytes of a pattern that compresses well (so a byte-by-byte feed stays short). */
  const pattern = (n: number) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = (i * 7) % 251;
    return b;
  };
  const MiB = 1 << 20;
  const BLOCKS: ReadonlyArray<readonly [string, number]> = [
    ["-B4", 64 << 10],
    ["-B5", 256 << 10],
    ["-B6", MiB],
    ["-B7", 4 * MiB],
  ];

  // The decoder's output buffer is 4 MiB: a frame whose output ends exactly at a multiple of
  // it ended with "the stream ended inside a frame (7 more bytes expected)" (issue 41, 1).
  for (const [flag, block] of BLOCKS) {
    const sizes = [...new Set([block - 1, block, block + 1, 2 * block, 4 * MiB - 1, 4 * MiB, 4 * MiB + 1, 8 * MiB, 3 * Math.max(block, 4 * MiB)])].sort((a, b) => a - b);
    test(`lz4 ${flag} (${block / 1024} KiB blocks): ${sizes.length} sizes, at every multiple of the block and the 4 MiB buffer and +-1, whole and byte by byte`, async () => {
      for (const n of sizes) {
        const plain = pattern(n);
        for (const args of [[flag], [flag, "-BD", "--no-frame-crc"], [flag, "--content-size"]]) {
          const packed = pack(plain, args);
          const whole = await decodeAll(lz4Decoder(), [packed]);
          expect({ n, args, same: whole.bytes.equals(plain) }).toEqual({ n, args, same: true });
        }
        const bytes = await decodeAll(lz4Decoder(), bytewise(pack(plain, [flag])));
        expect({ n, bytewise: bytes.bytes.equals(plain) }).toEqual({ n, bytewise: true });
        // Two such frames back to back: the first's end is no end of the stream.
        const twice = await decodeAll(lz4Decoder(), [Buffer.concat([pack(plain, [flag]), HELLO])]);
        expect(twice.bytes.byteLength).toBe(n + 5);
      }
    }, 60_000);
  }

  /** 9 MiB + 5 bytes of a repeating pattern with 4 MiB blocks (lz4 -B7), compressed by Debian's lz4 to under 1 MiB. */
  const big = () => {
    const plain = Buffer.alloc(9 * 2 ** 20 + 5);
    for (let i = 0; i < plain.length; i++) plain[i] = (i * 7) % 251;
    const z = spawnSync("lz4", ["-B7", "-c"], { input: plain, maxBuffer: 64 << 20 });
    expect(z.status).toBe(0);
    expect(z.stdout.length).toBeLessThan(1 << 20);
    return { plain, packed: z.stdout };
  };

  test("output larger than the 4 MiB buffer from one small chunk comes in full runs, each awaited", async () => {
    const { plain, packed } = big();
    const { bytes, runs } = await decodeAll(lz4Decoder(), [packed]);
    expect(bytes.equals(plain)).toBe(true);
    expect(runs).toEqual([4 << 20, 4 << 20, 2 ** 20 + 5]);
  });

  test("close() while a run is with the sink: the push stops there and never calls the library again", async () => {
    const { packed } = big();
    const d = lz4Decoder();
    let release!: () => void;
    let runs = 0;
    const pushed = d.push(packed, () => (++runs === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve()));
    d.close(); // the context is freed while the first 4 MiB run is out
    release();
    await expect(pushed).rejects.toThrow("the lz4 decoder was closed");
    expect(runs).toBe(1);
    await expect(d.push(HELLO, async () => {})).rejects.toThrow("the lz4 decoder was closed");
    d.close(); // idempotent
  });
});
