import { describe, expect, test } from "bun:test";
import { guidBytes, guidText } from "../../../src/install/efi/efi-guid.ts";
import { GptError, gptEntry, parseGptHeader } from "../../../src/install/efi/gpt.ts";
import { GPT_VDA, GPT_VDB, entryArray, headerBlock } from "./gpt-vectors.ts";

describe("EFI_GUID text (UEFI 2.10 Appendix A)", () => {
  test("the first three fields little-endian, the rest as stored; lower case; both ways", () => {
    const b = guidBytes("BCCFC23A-D699-4D91-BED2-0381F5F5B33D");
    expect(Buffer.from(b).toString("hex")).toBe("3ac2cfbc99d6914dbed20381f5f5b33d");
    expect(guidText(b)).toBe("bccfc23a-d699-4d91-bed2-0381f5f5b33d");
    expect(() => guidBytes("bccfc23a-d699-4d91-bed2")).toThrow('"bccfc23a-d699-4d91-bed2" is not a GUID (8-4-4-4-12 hex digits)');
  });
});

describe("GPT (UEFI 2.10 §5.3), sgdisk's tables", () => {
  test("the primary header: entry array at LBA 2, 128 entries of 128 bytes; entry 1 is the ESP sgdisk made", () => {
    const h = parseGptHeader(headerBlock(GPT_VDA.primary), "primary GPT of vda");
    expect(h).toEqual({ myLba: 1n, entryLba: 2n, entries: 128, entrySize: 128, entriesCrc: 0xbdcb3164 });
    const e = gptEntry(h, entryArray(GPT_VDA), 0, "primary GPT of vda");
    expect(guidText(e.typeGuid)).toBe("c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
    expect(guidText(e.uniqueGuid)).toBe("6e5f1a3b-2c4d-4e8f-9a0b-1c2d3e4f5a6b");
    expect([e.firstLba, e.lastLba]).toEqual([2048n, 1050623n]);
    expect(guidText(gptEntry(h, entryArray(GPT_VDA), 1, "x").uniqueGuid)).toBe("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d");
  });

  test("the backup header at the last LBA points at the backup entry array", () => {
    const h = parseGptHeader(headerBlock(GPT_VDB.backup), "backup GPT of vdb");
    expect([h.myLba, h.entryLba]).toEqual([BigInt(GPT_VDB.sectors - 1), BigInt(GPT_VDB.sectors - 33)]);
    expect(guidText(gptEntry(h, entryArray(GPT_VDB), 0, "x").uniqueGuid)).toBe("0f1e2d3c-4b5a-4697-8877-665544332211");
  });

  test("damaged tables are refused with what is wrong", () => {
    expect(() => parseGptHeader(new Uint8Array(512), "primary GPT of sda")).toThrow(new GptError('primary GPT of sda: no "EFI PART" signature'));
    const flipped = headerBlock(GPT_VDA.primary);
    flipped[40]! ^= 1;
    expect(() => parseGptHeader(flipped, "primary GPT of sda")).toThrow("primary GPT of sda: header CRC32 8e4e2f4a does not match its bytes");
    const h = parseGptHeader(headerBlock(GPT_VDA.primary), "p");
    const array = entryArray(GPT_VDA);
    array[200]! ^= 1;
    expect(() => gptEntry(h, array, 0, "p")).toThrow("p: entry array CRC32");
    expect(() => gptEntry(h, entryArray(GPT_VDA), 2, "p")).toThrow("p: entry 3 is unused");
    expect(() => gptEntry(h, entryArray(GPT_VDA), 128, "p")).toThrow("p: no entry 129 (the table has 128)");
    expect(() => gptEntry(h, entryArray(GPT_VDA).subarray(0, 512), 0, "p")).toThrow("p: entry array of 512 bytes, the header says 16384");
  });
});
