import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { KVER } from "../../../lab/base/kernel.ts";
import { extractVmlinux, findMagic, isElf } from "../../../lab/base/vmlinux.ts";

/** The kernel the lab boots (KVER, else the newest installed): no version is written here, so a Debian ABI bump needs no edit. */
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const haveKernel = prerequisites("the bzImage extraction check", [!existsSync(BZIMAGE) && `${BZIMAGE} (make deps installs linux-image-amd64)`]);

describe("vmlinux extraction", () => {
  test("finds every occurrence of a magic, including overlapping prefixes", () => {
    expect(findMagic(new Uint8Array([0xfd, 0xfd, 0x37, 0x7a, 0, 0xfd, 0x37, 0x7a]), [0xfd, 0x37, 0x7a])).toEqual([1, 5]);
    expect(findMagic(new Uint8Array([1, 2, 3]), [0xfd, 0x37])).toEqual([]);
  });

  test("a stream that decompresses to something other than ELF is skipped", async () => {
    const gz = Bun.gzipSync(new TextEncoder().encode("not a kernel"));
    await expect(extractVmlinux(new Uint8Array([0, 1, ...gz]))).rejects.toThrow(/no compressed ELF kernel/);
  });

  test("an ELF after junk bytes is found and returned whole", async () => {
    const elf = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(100).fill(7)]);
    const r = await extractVmlinux(new Uint8Array([9, 9, 9, ...Bun.gzipSync(elf)]));
    expect(r.decoder).toBe("gzip");
    expect(r.offset).toBe(3);
    expect([...r.elf]).toEqual([...elf]);
  });

  test.skipIf(!haveKernel)("Debian's bzImage holds an xz-compressed ELF", async () => {
    const r = await extractVmlinux(new Uint8Array(await Bun.file(BZIMAGE).arrayBuffer()));
    expect(r.decoder).toBe("xz");
    expect(isElf(r.elf)).toBe(true);
  });
});
