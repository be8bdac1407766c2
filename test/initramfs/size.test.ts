/**
 * The default initramfs as `make initramfs` builds it (a prerequisite of `make test`):
 * within SIZE_LIMIT_BYTES (the default's measured size + 10 %: bloat fails it), compressed
 * the way the default says, and still carrying the
 * agent, every disk tool of initramfs/tools.list and the module set. Reads the image the
 * build wrote; a missing image skips with the reason (and fails under CI=true).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, openSync, readFileSync, readSync, closeSync, statSync } from "node:fs";
import { COMPRESSORS, DEFAULT_COMPRESSION, SIZE_LIMIT_BYTES } from "../../initramfs/lib/compress.ts";
import { parseToolList } from "../../initramfs/lib/tools.ts";
import { KVER } from "../../lab/base/kernel.ts";
import { prerequisites } from "../helpers/prerequisites.ts";

const ROOT = `${import.meta.dir}/../..`;
const IMAGE = `${ROOT}/build/initramfs/initramfs-${KVER}.cpio${COMPRESSORS[DEFAULT_COMPRESSION].ext}`;
const ready = prerequisites("the default initramfs size check (make initramfs)", [
  !existsSync(IMAGE) && IMAGE.slice(ROOT.length + 1),
  !existsSync(`${IMAGE}.manifest`) && "its .manifest",
]);

/** The first bytes of each format, as the kernel's decompress_method() tells them apart. */
const MAGIC: Partial<Record<string, readonly number[]>> = {
  xz: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
  zstd: [0x28, 0xb5, 0x2f, 0xfd],
  lz4: [0x02, 0x21, 0x4c, 0x18],
  gzip: [0x1f, 0x8b],
};

describe("make's default compression", () => {
  test("mk/initramfs.mk builds with the compression initramfs/lib/compress.ts names as the default", () => {
    const mk = readFileSync(`${ROOT}/mk/initramfs.mk`, "utf8");
    expect(/^COMPRESS \?= (\S+)$/m.exec(mk)?.[1]).toBe(DEFAULT_COMPRESSION);
  });

  test("the kernel can unpack it: its option is a required built-in of the fragment and set in Debian's kernel config", () => {
    const option = COMPRESSORS[DEFAULT_COMPRESSION].kconfig;
    expect(readFileSync(`${ROOT}/kernel-config/metal-hammer.config`, "utf8").split("\n")).toContain(`${option}=y`);
    const config = `/boot/config-${KVER}`;
    if (!existsSync(config)) throw new Error(`${config} is missing (make deps installs linux-image-amd64)`);
    expect(readFileSync(config, "utf8").split("\n")).toContain(`${option}=y`);
  });
});

describe.skipIf(!ready)("the default initramfs", () => {
  test(`is at most ${SIZE_LIMIT_BYTES.toLocaleString("en")} bytes`, () => {
    const size = statSync(IMAGE).size;
    // The message names the size, so a failing build says by how much it is over.
    expect({ image: IMAGE.slice(ROOT.length + 1), size, withinLimit: size <= SIZE_LIMIT_BYTES }).toEqual({ image: IMAGE.slice(ROOT.length + 1), size, withinLimit: true });
  });

  test("is compressed with the default compressor at its default level, as its manifest and first bytes say", () => {
    const manifest = readFileSync(`${IMAGE}.manifest`, "utf8");
    expect(manifest).toContain(`compression ${DEFAULT_COMPRESSION} level ${COMPRESSORS[DEFAULT_COMPRESSION].levels[2]},`);
    const magic = MAGIC[DEFAULT_COMPRESSION] ?? [];
    const head = new Uint8Array(magic.length);
    const fd = openSync(IMAGE, "r");
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    expect([...head]).toEqual([...magic]);
  });

  test("still carries the agent, every tool of initramfs/tools.list and the real-server drivers", () => {
    const manifest = readFileSync(`${IMAGE}.manifest`, "utf8");
    const paths = new Set(manifest.split("\n").flatMap((l) => /^[fl] \d{4} (\S+)/.exec(l)?.slice(1, 2) ?? []));
    expect(paths.has("bin/metal-hammer")).toBe(true);
    expect(paths.has("init")).toBe(true);
    for (const t of parseToolList(readFileSync(`${ROOT}/initramfs/tools.list`, "utf8"), "initramfs/tools.list")) expect([t, paths.has(t.slice(1))]).toEqual([t, true]);
    const modules = new Set((/^# modules: (.*)$/m.exec(manifest)?.[1] ?? "").split(" "));
    for (const m of ["ice", "i40e", "mlx5_core", "bnxt_en", "nvme", "ahci", "megaraid_sas", "mpt3sas", "smartpqi", "virtio_net", "md_mod", "dm_mod", "ext4"])
      expect([m, modules.has(m)]).toEqual([m, true]);
  });
});
