import { describe, expect, test } from "bun:test";
import { parseDotConfig } from "../../../src/kernel/kconfig/dotconfig.ts";
import { evaluate, type ModuleSet, type OptionResult } from "../../../src/kernel/kconfig/evaluate.ts";
import { parseFragment } from "../../../src/kernel/kconfig/fragment.ts";

const FRAGMENT_FILE = new URL("../../fixtures/kconfig/small-fragment.config", import.meta.url);
const FRAGMENT = parseFragment(await Bun.file(FRAGMENT_FILE).text(), "frag");

const mods = (...names: string[]): ModuleSet => ({ source: "set", names: new Set(names) });

function check(config: string, modules?: ModuleSet) {
  const report = evaluate(FRAGMENT, parseDotConfig(config, "cfg"), modules);
  const by = (name: string): OptionResult => {
    const r = report.results.find((x) => x.option === name);
    if (!r) throw new Error(`no result for ${name}`);
    return r;
  };
  return { report, by };
}

const ALL_GOOD = "CONFIG_IPV6=y\nCONFIG_VIRTIO_NET=y\nCONFIG_BLK_DEV_NVME=y\nCONFIG_IPV6_OPTIMISTIC_DAD=y\nCONFIG_I6300ESB_WDT=y\n";

describe("evaluate", () => {
  test("a config with everything built in passes with nothing to remark", () => {
    const { report } = check(ALL_GOOD);
    expect(report.verdict).toBe("pass");
    expect(report.counts).toEqual({ pass: 7, warn: 0, fail: 0 });
    expect(report.results.map((r) => r.finding)).toEqual(["", "", "", "", "", "", ""]);
    expect(report.results.map((r) => r.expected)).toEqual(["y", "y/m", "y/m", "y", "y/m", "n", "n"]);
  });

  describe("required-builtin", () => {
    test("IPV6=m fails: a module loads too late", () => {
      const r = check(ALL_GOOD.replace("IPV6=y", "IPV6=m"), mods("ipv6")).by("IPV6");
      expect([r.status, r.actual, r.moduleCheck]).toEqual(["fail", "m", null]);
      expect(r.finding).toBe("is a module (=m): it must be built in, a module loads too late");
      expect(r.reason).toBe("IPv6 before any module");
    });
    test("not set, absent or a non-tristate value fails", () => {
      expect(check(ALL_GOOD.replace("CONFIG_IPV6=y", "# CONFIG_IPV6 is not set")).by("IPV6")).toMatchObject({ status: "fail", actual: "n", finding: "is not set" });
      expect(check(ALL_GOOD.replace("CONFIG_IPV6=y\n", "")).by("IPV6")).toMatchObject({ status: "fail", actual: "n" });
      expect(check(ALL_GOOD.replace("IPV6=y", 'IPV6="y"')).by("IPV6")).toMatchObject({ status: "fail", actual: '"y"', finding: 'has the value "y", expected =y' });
    });
  });

  describe("required (y or m)", () => {
    test("=m passes when the module is in the module set", () => {
      const r = check(ALL_GOOD.replace("VIRTIO_NET=y", "VIRTIO_NET=m"), mods("virtio_net")).by("VIRTIO_NET");
      expect([r.status, r.moduleCheck, r.missingModules]).toEqual(["pass", "present", []]);
    });
    test("=m fails when the module is not in the module set, naming the missing modules only", () => {
      const { report, by } = check(ALL_GOOD.replace("VIRTIO_NET=y", "VIRTIO_NET=m").replace("NVME=y", "NVME=m"), mods("e1000", "nvme_core"));
      expect(by("VIRTIO_NET")).toMatchObject({
        status: "fail",
        moduleCheck: "missing",
        missingModules: ["virtio_net"],
        finding: "is a module (=m) but virtio_net is not in the module set",
      });
      expect(by("BLK_DEV_NVME")).toMatchObject({ status: "fail", missingModules: ["nvme"] });
      expect(report.verdict).toBe("fail");
    });
    test("=m without a module set counts as present and says so", () => {
      const { report, by } = check(ALL_GOOD.replace("VIRTIO_NET=y", "VIRTIO_NET=m"));
      expect(by("VIRTIO_NET")).toMatchObject({ status: "pass", moduleCheck: "unverified", finding: "=m, counted as present: not verified (no --modules)" });
      expect(report.unverifiedModules).toBe(1);
      expect(report.modules).toBeNull();
    });
    test("not set fails", () => {
      expect(check(ALL_GOOD.replace("CONFIG_VIRTIO_NET=y\n", "")).by("VIRTIO_NET")).toMatchObject({ status: "fail", finding: "is not set" });
    });
  });

  describe("recommended", () => {
    test("a miss is a warning and the check still passes", () => {
      const { report, by } = check(
        ALL_GOOD.replace("CONFIG_IPV6_OPTIMISTIC_DAD=y\n", "").replace("WDT=y", "WDT=m") + "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y\n",
        mods("virtio_net"),
      );
      expect(by("IPV6_OPTIMISTIC_DAD")).toMatchObject({ status: "warn", finding: "is not set" });
      expect(by("I6300ESB_WDT")).toMatchObject({ status: "warn", moduleCheck: "missing", missingModules: ["i6300esb"] });
      expect(by("LOCK_DOWN_KERNEL_FORCE_INTEGRITY")).toMatchObject({ status: "warn", finding: "is =y, must not be set" });
      expect(report.verdict).toBe("pass");
      expect(report.counts).toEqual({ pass: 4, warn: 3, fail: 0 });
    });
    test("an option without module names must be =y: =m is a warning", () => {
      expect(check(ALL_GOOD.replace("DAD=y", "DAD=m")).by("IPV6_OPTIMISTIC_DAD")).toMatchObject({ status: "warn", finding: "is a module (=m), expected built in (=y)" });
    });
  });

  describe("must-not", () => {
    test("absent or not set passes, =y or =m fails", () => {
      expect(check(ALL_GOOD).by("CMDLINE_OVERRIDE")).toMatchObject({ status: "pass", actual: "n" });
      expect(check(ALL_GOOD + "# CONFIG_CMDLINE_OVERRIDE is not set\n").by("CMDLINE_OVERRIDE").status).toBe("pass");
      expect(check(ALL_GOOD + "CONFIG_CMDLINE_OVERRIDE=y\n").by("CMDLINE_OVERRIDE")).toMatchObject({ status: "fail", finding: "is =y, must not be set" });
      expect(check(ALL_GOOD + "CONFIG_CMDLINE_OVERRIDE=m\n").by("CMDLINE_OVERRIDE").status).toBe("fail");
    });
  });

  test("the report names its inputs and keeps fragment order", () => {
    const { report } = check(ALL_GOOD, mods("a", "b"));
    expect(report.fragment).toBe("frag");
    expect(report.config).toBe("cfg");
    expect(report.modules).toEqual({ source: "set", count: 2 });
    expect(report.results.map((r) => r.option)).toEqual(FRAGMENT.entries.map((e) => e.name));
  });
});
