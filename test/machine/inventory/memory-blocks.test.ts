import { describe, expect, test } from "bun:test";
import { countMemoryBlocks } from "../../../src/machine/inventory/memory-blocks.ts";

const blocks = (...states: (string | undefined)[]) => states.map((state, i) => ({ name: `memory${i}`, state }));

describe("countMemoryBlocks: online blocks times block_size_bytes, as ghw counts them", () => {
  test("QEMU -m 1024: 8 online blocks of 0x8000000 are exactly 1 GiB", () => {
    const eight = blocks(...Array.from({ length: 8 }, () => "online\n"));
    expect(countMemoryBlocks({ blockSize: "8000000\n", blocks: eight })).toEqual({ ok: true, bytes: 1024 * 1024 * 1024, online: 8, blockBytes: 128 * 1024 * 1024 });
  });

  test("offline and going-offline blocks are not counted; no online block is 0 bytes (ghw then takes MemTotal)", () => {
    expect(countMemoryBlocks({ blockSize: "80000000", blocks: blocks("online", "offline", "going-offline", " online ") })).toMatchObject({
      ok: true,
      online: 2,
      bytes: 2 * 2 ** 31,
    });
    expect(countMemoryBlocks({ blockSize: "8000000", blocks: blocks("offline") })).toMatchObject({ ok: true, bytes: 0 });
    expect(countMemoryBlocks({ blockSize: "8000000", blocks: [] })).toMatchObject({ ok: true, bytes: 0 });
  });

  test("only entries named memory<digits> are blocks", () => {
    const entries = [
      { name: "memory0", state: "online" },
      { name: "auto_online_blocks", state: "online" },
      { name: "memory", state: "online" },
      { name: "memory12", state: "online" },
    ];
    expect(countMemoryBlocks({ blockSize: "8000000", blocks: entries })).toMatchObject({ ok: true, online: 2 });
  });

  test("an unreadable directory, block size or state, or a block size that is not plain hex, makes the count unusable (ghw then reads the boot line)", () => {
    expect(countMemoryBlocks(undefined)).toEqual({ ok: false, reason: "cannot be listed" });
    expect(countMemoryBlocks({ blockSize: undefined, blocks: blocks("online") })).toEqual({ ok: false, reason: "no block_size_bytes" });
    expect(countMemoryBlocks({ blockSize: "0x8000000", blocks: blocks("online") })).toEqual({ ok: false, reason: 'block_size_bytes "0x8000000" is not hex' });
    expect(countMemoryBlocks({ blockSize: "", blocks: blocks("online") })).toMatchObject({ ok: false });
    expect(countMemoryBlocks({ blockSize: "8000000", blocks: blocks("online", undefined) })).toEqual({ ok: false, reason: "memory1/state unreadable" });
    expect(countMemoryBlocks({ blockSize: "f".repeat(17), blocks: blocks("online") })).toMatchObject({ ok: false });
  });
});
