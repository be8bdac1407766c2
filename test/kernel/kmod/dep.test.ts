import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseModulesBuiltin, parseModulesDep, planModuleLoad, renderModulesDep } from "../../../src/kernel/kmod/dep.ts";
import { moduleNameOfFile, parseModuleList } from "../../../src/kernel/kmod/names.ts";

// Lines from Debian 6.1.0-57-amd64's modules.dep (plus an .xz group as other builds ship; the storage modules' closure appended for the disk stages).
const DEP = parseModulesDep(readFileSync(`${import.meta.dir}/../../fixtures/modules/modules.dep`, "utf8"));
const names = (plan: ReturnType<typeof planModuleLoad>): string[] => plan.load.map((m) => m.name);

describe("module load order", () => {
  test("virtio_net alone pulls in its dependencies, each before its users", () => {
    expect(names(planModuleLoad(DEP, ["virtio_net"]))).toEqual(["virtio_ring", "virtio", "failover", "net_failover", "virtio_net"]);
  });

  test("the lab's virtio and e1000 modules load in the order measured in the field notes", () => {
    const list = parseModuleList("virtio_pci\nvirtio_net\ne1000\n", "lab");
    expect(names(planModuleLoad(DEP, list))).toEqual([
      "virtio_ring",
      "virtio",
      "virtio_pci_modern_dev",
      "virtio_pci_legacy_dev",
      "virtio_pci",
      "failover",
      "net_failover",
      "virtio_net",
      "e1000",
    ]);
  });

  test("compressed module names are canonical and dashes become underscores", () => {
    expect(moduleNameOfFile("kernel/drivers/pps/pps_core.ko.xz")).toBe("pps_core");
    expect(moduleNameOfFile("kernel/x/foo-bar.ko.zst")).toBe("foo_bar");
    expect(names(planModuleLoad(DEP, ["e1000e"]))).toEqual(["pps_core", "ptp", "e1000e"]);
  });

  test("the image's modules.dep drops the compression suffix", () => {
    expect(renderModulesDep(planModuleLoad(DEP, ["e1000e"]).load)).toBe(
      "kernel/drivers/pps/pps_core.ko:\nkernel/drivers/ptp/ptp.ko: kernel/drivers/pps/pps_core.ko\nkernel/drivers/net/ethernet/intel/e1000e/e1000e.ko: kernel/drivers/ptp/ptp.ko kernel/drivers/pps/pps_core.ko\n",
    );
  });

  test("an unknown module is an error naming it; a built-in one is reported, not loaded", () => {
    expect(() => planModuleLoad(DEP, ["nosuch"])).toThrow("module nosuch is neither in modules.dep nor built into the kernel");
    expect(planModuleLoad(DEP, ["sr_mod"], new Set(["sr_mod"]))).toEqual({ load: [], builtin: ["sr_mod"] });
  });

  test("a dependency missing from modules.dep and a cycle are errors", () => {
    const broken = parseModulesDep("kernel/a.ko: kernel/b.ko\n");
    expect(() => planModuleLoad(broken, ["a"])).toThrow("module a depends on kernel/b.ko, which modules.dep does not list");
    const cyc = parseModulesDep("kernel/a.ko: kernel/b.ko\nkernel/b.ko: kernel/a.ko\n");
    expect(() => planModuleLoad(cyc, ["a"])).toThrow("module dependency cycle: a -> b -> a");
  });

  test("module lists allow comments and blank lines, and reject anything that is not a name", () => {
    expect(parseModuleList("# NICs\nvirtio_net  # virtio\n\ne1000\n", "l")).toEqual(["virtio_net", "e1000"]);
    expect(() => parseModuleList("virtio$\n", "l")).toThrow(/is not a module name/);
    expect(parseModulesBuiltin("kernel/fs/ext4/ext4.ko\nkernel/drivers/nvme/host/nvme-core.ko\n")).toEqual(new Set(["ext4", "nvme_core"]));
    expect(() => parseModulesDep("garbage\n")).toThrow(/modules.dep line 1/);
  });
});
