/**
 * The boot-time kernel check's reads (src/init/kernel-facts.ts) against a directory
 * laid out like the initramfs: the release from procfs, the module trees, the running
 * release's files, /proc/config.gz before the image's /boot/config-<release>, and the
 * cap on the config also after gunzip.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { READ_CAPS } from "../../src/platform/fs/read-bounded.ts";
import { readKernelFacts } from "../../src/init/kernel-facts.ts";

const K = "6.1.0-57-amd64";
let root = "";

function put(path: string, data: string | Uint8Array): void {
  mkdirSync(`${root}${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
  writeFileSync(`${root}${path}`, data);
}

beforeEach(() => {
  root = mkdtempSync(`${tmpdir()}/mhl-kfacts-`);
  put("/proc/sys/kernel/osrelease", `${K}\n`);
  put(`/lib/modules/${K}/kernel/drivers/net/virtio_net.ko`, "ko");
  put(`/lib/modules/${K}/modules.dep`, "kernel/drivers/net/virtio_net.ko:\n");
  mkdirSync(`${root}/lib/modules/5.10.0-9-amd64`, { recursive: true });
  put("/lib/modules/not-a-tree", "x");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("readKernelFacts", () => {
  test("the release, every module tree, the running release's files, and the image's config when there is no /proc/config.gz", () => {
    put(`/boot/config-${K}`, "CONFIG_IPV6=y\n");
    expect(readKernelFacts(root)).toEqual({
      release: K,
      moduleTrees: ["5.10.0-9-amd64", K],
      moduleDir: `/lib/modules/${K}`,
      moduleFiles: ["kernel/drivers/net/virtio_net.ko", "modules.dep"],
      searched: ["/proc/config.gz", `/boot/config-${K}`],
      config: { source: `/boot/config-${K}`, text: "CONFIG_IPV6=y\n" },
    });
  });

  test("/proc/config.gz, gunzipped, wins over the image's copy", () => {
    put(`/boot/config-${K}`, "CONFIG_IPV6=y\n");
    put("/proc/config.gz", gzipSync("CONFIG_IPV6=m\n"));
    expect(readKernelFacts(root).config).toEqual({ source: "/proc/config.gz", text: "CONFIG_IPV6=m\n" });
  });

  test("a release without a tree has no module files; no config anywhere is no config", () => {
    put("/proc/sys/kernel/osrelease", "6.1.0-58-amd64\n");
    const f = readKernelFacts(root);
    expect([f.release, f.moduleFiles, f.config, f.configError]).toEqual(["6.1.0-58-amd64", undefined, undefined, undefined]);
    expect(f.searched).toEqual(["/proc/config.gz", "/boot/config-6.1.0-58-amd64"]);
  });

  test("a /proc/config.gz that is not gzip, unpacks past the cap, or is not UTF-8 is an error naming it (the image's copy is not used instead)", () => {
    put(`/boot/config-${K}`, "CONFIG_IPV6=y\n");
    put("/proc/config.gz", "plain text");
    expect(readKernelFacts(root)).toMatchObject({ config: undefined, configError: { source: "/proc/config.gz" } });
    expect(readKernelFacts(root).configError?.error).toStartWith("/proc/config.gz is not gzip data: ");
    // A few KiB of gzip that unpack past the cap: the unpacked size is bounded too.
    put("/proc/config.gz", gzipSync(new Uint8Array(READ_CAPS.kernelConfig + 1)));
    expect(readKernelFacts(root).configError?.error).toBe("/proc/config.gz unpacks to more than the cap of 4 MiB (4194304 bytes) (see docs/bounds.md)");
    put("/proc/config.gz", gzipSync(new Uint8Array([0xff, 0xfe, 0x00])));
    expect(readKernelFacts(root).configError?.error).toBe("/proc/config.gz is not UTF-8 text");
  });

  test("an image config past the cap is an error naming the file and the cap", () => {
    put(`/boot/config-${K}`, new Uint8Array(READ_CAPS.kernelConfig + 1));
    expect(readKernelFacts(root).configError).toEqual({
      source: `/boot/config-${K}`,
      error: `/boot/config-${K} is larger than the cap of 4 MiB (4194304 bytes) (see docs/bounds.md)`,
    });
  });

  test("without a readable release nothing is looked up by release", () => {
    rmSync(`${root}/proc/sys/kernel/osrelease`);
    const f = readKernelFacts(root);
    expect([f.release, f.moduleFiles, f.searched]).toEqual([undefined, undefined, ["/proc/config.gz"]]);
  });
});
