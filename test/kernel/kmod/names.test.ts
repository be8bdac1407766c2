import { describe, expect, test } from "bun:test";
import { isModulePath, ModuleError, moduleNameOfFile, parseModuleArg, parseModuleList } from "../../../src/kernel/kmod/names.ts";

function inputMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ModuleError);
    return (e as ModuleError).message;
  }
  throw new Error("expected a ModuleError");
}

describe("module names", () => {
  test("file names give module names with - and _ made equal", () => {
    expect(moduleNameOfFile("kernel/drivers/net/virtio_net.ko")).toBe("virtio_net");
    expect(moduleNameOfFile("kernel/drivers/nvme/host/nvme-core.ko.xz")).toBe("nvme_core");
    expect(moduleNameOfFile("/lib/modules/x/kernel/fs/nls/nls_iso8859-1.ko.zst")).toBe("nls_iso8859_1");
    expect(moduleNameOfFile("iTCO_wdt.ko.gz")).toBe("iTCO_wdt");
    expect(moduleNameOfFile("modules.dep")).toBeUndefined();
    expect(moduleNameOfFile("README.ko.txt")).toBeUndefined();
    expect(moduleNameOfFile("kernel/odd name.ko")).toBeUndefined();
  });

  test("a list file takes names, comments, blank lines and modules.dep lines", () => {
    const text = [
      "# lab modules",
      "virtio_ring",
      "  virtio   # trailing comment",
      "",
      "failover, net_failover",
      "kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko kernel/net/core/failover.ko",
      "kernel/drivers/nvme/host/nvme-core.ko.xz:",
      "kernel/drivers/net/ethernet/intel/e1000/e1000.ko",
    ].join("\n");
    expect(parseModuleList(text, "l")).toEqual(["virtio_ring", "virtio", "failover", "net_failover", "virtio_net", "nvme_core", "e1000"]);
  });

  test("a bad token in a list file names the line", () => {
    expect(inputMessage(() => parseModuleList("virtio\nvirtio net!\n", "mods.list"))).toBe(
      'mods.list:2: "net!" is not a module name (expected names like virtio_net, one per line, or modules.dep lines)',
    );
  });

  test("--modules as a comma list", () => {
    expect(parseModuleArg("virtio_net,e1000, nvme-core,,")).toEqual(["virtio_net", "e1000", "nvme_core"]);
    expect(inputMessage(() => parseModuleArg("virtio_net,bad name"))).toContain('--modules: "bad name" is not a module name');
  });

  test("a value with / or . is a path, anything else a list of names", () => {
    expect(isModulePath("initramfs/modules/6.1.0-57-amd64.list")).toBe(true);
    expect(isModulePath("modules.dep")).toBe(true);
    expect(isModulePath("/lib/modules/6.1.0-57-amd64")).toBe(true);
    expect(isModulePath("virtio_net,e1000")).toBe(false);
    expect(isModulePath("virtio_net")).toBe(false);
  });
});
