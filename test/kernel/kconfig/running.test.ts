import { describe, expect, test } from "bun:test";
import { parseFragment } from "../../../src/kernel/kconfig/fragment.ts";
import { checkRunningKernel, runningKernelLines, type RunningKernelFacts } from "../../../src/kernel/kconfig/running.ts";

const FRAGMENT = parseFragment(await Bun.file(new URL("../../fixtures/kconfig/small-fragment.config", import.meta.url)).text(), "frag");
const K57 = "6.1.0-57-amd64";
const K58 = "6.1.0-58-amd64";

/** The image: modules for 6.1.0-57 (virtio_net, nvme, nvme-core) and its tables. */
function image(release: string, config?: { source: string; text: string }): RunningKernelFacts {
  return {
    release,
    moduleTrees: [K57],
    moduleDir: `/lib/modules/${release}`,
    moduleFiles:
      release === K57
        ? ["kernel/drivers/net/virtio_net.ko", "kernel/drivers/nvme/host/nvme.ko", "kernel/drivers/nvme/host/nvme-core.ko", "modules.dep", "modules.alias"]
        : undefined,
    searched: ["/proc/config.gz", `/boot/config-${release}`],
    config,
  };
}

/** IPv6 built in, the NIC and NVMe as modules, optimistic DAD on, no watchdog (a warning). */
const CONFIG = "CONFIG_IPV6=y\nCONFIG_VIRTIO_NET=m\nCONFIG_BLK_DEV_NVME=m\nCONFIG_IPV6_OPTIMISTIC_DAD=y\n";
const lines = (f: RunningKernelFacts) => runningKernelLines(checkRunningKernel(f, FRAGMENT));

describe("the running kernel against its initramfs", () => {
  test("a matching release whose config meets the fragment is one info line: ok, with counts and the image's own module set", () => {
    expect(lines(image(K57, { source: `/boot/config-${K57}`, text: CONFIG }))).toEqual([
      {
        event: "init.kconfig",
        level: "info",
        message: `kernel ${K57}: config /boot/config-${K57} meets frag: 6 passed, 1 warning (I6300ESB_WDT); module set /lib/modules/${K57} (3 modules)`,
        fields: {
          release: K57,
          outcome: "ok",
          config: `/boot/config-${K57}`,
          modules: { source: `/lib/modules/${K57}`, count: 3 },
          counts: { pass: 6, warn: 1, fail: 0 },
          failed: [],
          warnings: ["I6300ESB_WDT"],
        },
      },
    ]);
  });

  test("a release the image has no modules for is an error naming both; the config is checked against an empty module set", () => {
    const c = checkRunningKernel(image(K58, { source: "/proc/config.gz", text: CONFIG }), FRAGMENT);
    expect(c.treeMatches).toBe(false);
    expect(runningKernelLines(c).map((l) => [l.event, l.level, l.message])).toEqual([
      ["init.kernel", "error", `running kernel ${K58}, the initramfs carries modules for ${K57}: no driver can be loaded; rebuild the initramfs for ${K58}`],
      [
        "init.kconfig",
        "error",
        `kernel ${K58}: config /proc/config.gz fails frag: 2 requirements not met: VIRTIO_NET is a module (=m) but virtio_net is not in the module set; BLK_DEV_NVME is a module (=m) but nvme, nvme_core are not in the module set; 4 passed, 1 warning (I6300ESB_WDT); module set empty: the image has no /lib/modules/${K58}; the boot goes on`,
      ],
    ]);
  });

  test("an image with no module tree at all says so", () => {
    const f = { ...image(K58), moduleTrees: [] };
    expect(lines(f)[0]?.message).toBe(`running kernel ${K58}, the initramfs carries modules for no kernel: no driver can be loaded; rebuild the initramfs for ${K58}`);
  });

  test("no config for the running kernel is a warning naming where it looked", () => {
    expect(lines(image(K57))).toEqual([
      {
        event: "init.kconfig",
        level: "warn",
        message: `no config found for the running kernel ${K57} (looked for /proc/config.gz, /boot/config-${K57}): its options are not checked`,
        fields: { release: K57, outcome: "no-config", searched: ["/proc/config.gz", `/boot/config-${K57}`] },
      },
    ]);
  });

  test("a required option missing is an error line naming it and what is wrong", () => {
    const [l] = lines(image(K57, { source: "/proc/config.gz", text: CONFIG.replace("CONFIG_IPV6=y", "# CONFIG_IPV6 is not set") }));
    expect(l).toMatchObject({ event: "init.kconfig", level: "error", fields: { outcome: "fail", failed: ["IPV6"], counts: { pass: 5, warn: 1, fail: 1 } } });
    expect(l?.message).toBe(
      `kernel ${K57}: config /proc/config.gz fails frag: 1 requirement not met: IPV6 is not set; 5 passed, 1 warning (I6300ESB_WDT); module set /lib/modules/${K57} (3 modules); the boot goes on`,
    );
  });

  test("a driver built as a module that the image lacks fails its option, naming the module", () => {
    const f = { ...image(K57, { source: "/proc/config.gz", text: CONFIG }), moduleFiles: ["kernel/drivers/nvme/host/nvme.ko", "kernel/drivers/nvme/host/nvme-core.ko"] };
    expect(lines(f)[0]?.fields).toMatchObject({ outcome: "fail", failed: ["VIRTIO_NET"] });
  });

  test("a config that is not a kernel .config, or could not be read, is a warning with the parser's or reader's words", () => {
    expect(lines(image(K57, { source: "/proc/config.gz", text: "hello\n" }))).toEqual([
      {
        event: "init.kconfig",
        level: "warn",
        message: `the config of the running kernel ${K57} cannot be used: /proc/config.gz:1: expected CONFIG_NAME=value, "# CONFIG_NAME is not set", a # comment or a blank line, got "hello": its options are not checked`,
        fields: {
          release: K57,
          outcome: "invalid",
          config: "/proc/config.gz",
          error: '/proc/config.gz:1: expected CONFIG_NAME=value, "# CONFIG_NAME is not set", a # comment or a blank line, got "hello"',
        },
      },
    ]);
    const unreadable = { ...image(K57), configError: { source: "/proc/config.gz", error: "/proc/config.gz is not gzip data: incorrect header check" } };
    expect(lines(unreadable)[0]).toMatchObject({ level: "warn", fields: { outcome: "invalid", config: "/proc/config.gz" } });
  });

  test("more than ten failures name ten and count the rest", () => {
    const many = parseFragment(Array.from({ length: 12 }, (_, i) => `# @required-builtin\n# r${i}\nCONFIG_OPT${i}=y`).join("\n"), "many");
    const [l] = runningKernelLines(checkRunningKernel(image(K57, { source: "c", text: "CONFIG_OTHER=y\n" }), many));
    expect(l?.message).toContain("12 requirements not met: OPT0 is not set; OPT1 is not set;");
    expect(l?.message).toContain("OPT9 is not set; and 2 more; 0 passed");
  });
});
