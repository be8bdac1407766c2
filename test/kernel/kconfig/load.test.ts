import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processIo } from "../../../src/platform/io/context.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { loadDotConfig, loadModuleSet } from "../../../src/kernel/kconfig/load.ts";

describe("loading from the real filesystem (processIo)", () => {
  let dir = "";
  const io = processIo();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "mh-kconfig-"));
    await mkdir(join(dir, "mods/kernel/drivers/net"), { recursive: true });
    await mkdir(join(dir, "mods/kernel/drivers/nvme/host"), { recursive: true });
    await writeFile(join(dir, "mods/kernel/drivers/net/virtio_net.ko.xz"), "");
    await writeFile(join(dir, "mods/kernel/drivers/nvme/host/nvme-core.ko.zst"), "");
    await writeFile(join(dir, "mods/modules.dep"), "kernel/drivers/net/virtio_net.ko.xz:\n");
    // initramfs builders sometimes link modules in instead of copying them
    await symlink(join(dir, "mods/kernel/drivers/net/virtio_net.ko.xz"), join(dir, "mods/e1000e.ko"));
    await mkdir(join(dir, "empty"));
    await writeFile(join(dir, "lab.list"), "# lab\nvirtio_net\ne1000\n");
    await writeFile(join(dir, "config"), "CONFIG_IPV6=y\n");
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("a directory is searched recursively for module files, symlinks included", async () => {
    const set = await loadModuleSet(io, join(dir, "mods"));
    expect([...set.names].sort()).toEqual(["e1000e", "nvme_core", "virtio_net"]);
    expect(set.source).toBe(join(dir, "mods"));
  });

  test("a file is read as a module list", async () => {
    expect([...(await loadModuleSet(io, join(dir, "lab.list"))).names]).toEqual(["virtio_net", "e1000"]);
  });

  test("a directory without modules and a missing path are kconfig_input errors", async () => {
    for (const p of [join(dir, "empty"), join(dir, "missing.list")]) {
      const e = await loadModuleSet(io, p).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AgentError);
      expect((e as AgentError).code).toBe("kconfig_input");
      expect((e as AgentError).message).toContain(p);
    }
  });

  test("a .config is read and parsed", async () => {
    expect((await loadDotConfig(io, join(dir, "config"))).options.get("IPV6")?.kind).toBe("y");
  });
});
