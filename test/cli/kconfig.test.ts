import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/program.ts";
import { EXIT_CODES } from "../../src/platform/exit-codes.ts";
import { BUILTIN_FRAGMENT_TEXT } from "../../src/kernel/kconfig/builtin-fragment.ts";
import { parseFragment } from "../../src/kernel/kconfig/fragment.ts";
import { captureContext } from "../helpers/capture.ts";

const FAILED = EXIT_CODES.kconfig_failed.exit;
const INPUT = EXIT_CODES.kconfig_input.exit;

const FRAG = await Bun.file(new URL("../fixtures/kconfig/small-fragment.config", import.meta.url)).text();

function files(extra: Record<string, string | Uint8Array> = {}) {
  return {
    "/f.config": FRAG,
    "/good": "CONFIG_IPV6=y\nCONFIG_VIRTIO_NET=m\nCONFIG_BLK_DEV_NVME=y\n# CONFIG_IPV6_OPTIMISTIC_DAD is not set\nCONFIG_I6300ESB_WDT=y\n",
    "/bad": "CONFIG_IPV6=m\nCONFIG_VIRTIO_NET=m\nCONFIG_BLK_DEV_NVME=y\nCONFIG_CMDLINE_OVERRIDE=y\n",
    ...extra,
  };
}

async function run(args: string[], extra: Record<string, string | Uint8Array> = {}) {
  const c = captureContext(files(extra));
  const code = await runCli(["kconfig", "check", "--fragment", "/f.config", ...args], c.ctx);
  return { code, out: c.out(), err: c.err() };
}

describe("metal-hammer kconfig check", () => {
  test("requirements met: exit 0, a table with the warning and a summary", async () => {
    const r = await run(["--config", "/good"]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    const lines = r.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^STATUS\s+OPTION\s+CLASS\s+WANT\s+GOT\s+DETAIL$/);
    expect(lines[1]).toMatch(/^WARN\s+IPV6_OPTIMISTIC_DAD\s+recommended\s+y\s+n\s+is not set - optimistic DAD$/);
    expect(r.out).toMatch(/^PASS\s+VIRTIO_NET\s+required\s+y\/m\s+m\s+=m, counted as present: not verified \(no --modules\) - the lab NIC$/m);
    expect(lines.at(-1)).toBe(
      "PASS: /good against /f.config: 0 failed, 1 warning, 6 passed; 1 option is a module (=m) counted as present without checking the initramfs (give --modules to verify)",
    );
  });

  test("a requirement not met: exit 40, the table on stdout and one error line naming the options", async () => {
    const r = await run(["--config", "/bad", "--modules", "e1000"]);
    expect(r.code).toBe(FAILED);
    expect(r.out).toMatch(/^FAIL\s+IPV6\s+required-builtin\s+y\s+m\s+is a module \(=m\): it must be built in, a module loads too late - IPv6 before any module$/m);
    expect(r.out).toMatch(/^FAIL\s+VIRTIO_NET\s+.*virtio_net is not in the module set/m);
    expect(r.out).toMatch(/^FAIL\s+CMDLINE_OVERRIDE\s+must-not\s+n\s+y\s+is =y, must not be set/m);
    expect(r.err).toBe("metal-hammer: kernel config check failed: 3 requirement(s) not met: IPV6, VIRTIO_NET, CMDLINE_OVERRIDE\n");
  });

  test("--json prints the structured report, also when failing", async () => {
    const r = await run(["--config", "/bad", "--modules", "virtio_net,e1000", "--json"]);
    expect(r.code).toBe(FAILED);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ fragment: "/f.config", config: "/bad", modules: { source: "virtio_net,e1000", count: 2 }, verdict: "fail", counts: { pass: 3, warn: 2, fail: 2 } });
    expect(j.results.map((x: { option: string; status: string }) => [x.option, x.status])).toEqual([
      ["IPV6", "fail"],
      ["VIRTIO_NET", "pass"],
      ["BLK_DEV_NVME", "pass"],
      ["IPV6_OPTIMISTIC_DAD", "warn"],
      ["I6300ESB_WDT", "warn"],
      ["LOCK_DOWN_KERNEL_FORCE_INTEGRITY", "pass"],
      ["CMDLINE_OVERRIDE", "fail"],
    ]);
    expect(j.results[1]).toMatchObject({ moduleCheck: "present", modules: ["virtio_net"], missingModules: [], reason: "the lab NIC" });
  });

  test("--modules takes a list file, a modules.dep file or a directory", async () => {
    const good = ["--config", "/good", "--json"];
    const verdict = async (modules: string, extra: Record<string, string>) => {
      const r = await run([...good, "--modules", modules], extra);
      const check = JSON.parse(r.out).results[1].moduleCheck;
      expect(r.code).toBe(check === "present" ? 0 : FAILED);
      return check;
    };
    expect(await verdict("/m.list", { "/m.list": "# lab\nvirtio\nvirtio_net\n" })).toBe("present");
    expect(await verdict("/m.list", { "/m.list": "virtio\n" })).toBe("missing");
    expect(await verdict("/x/modules.dep", { "/x/modules.dep": "kernel/drivers/net/virtio_net.ko.xz: kernel/drivers/net/net_failover.ko.xz\n" })).toBe("present");
    expect(await verdict("/lib/modules/v", { "/lib/modules/v/kernel/drivers/net/virtio_net.ko.zst": "", "/lib/modules/v/modules.dep": "" })).toBe("present");
    expect(await verdict("/lib/modules/v", { "/lib/modules/v/kernel/drivers/net/e1000.ko": "" })).toBe("missing");
  });

  test("the embedded fragment is used without --fragment", async () => {
    const entries = parseFragment(BUILTIN_FRAGMENT_TEXT, "embedded").entries;
    const all = entries.map((e) => (e.value === "n" ? `# CONFIG_${e.name} is not set` : `CONFIG_${e.name}=y`)).join("\n");
    const c = captureContext({ "/all": all });
    expect(await runCli(["kconfig", "check", "--config", "/all", "--json"], c.ctx)).toBe(0);
    const j = JSON.parse(c.out());
    expect(j.fragment).toBe("kernel-config/metal-hammer.config");
    expect(j.counts).toEqual({ pass: entries.length, warn: 0, fail: 0 });
  });

  describe("bad input: exit 41 with one line naming the file", () => {
    test.each([
      [["--config", "/nope"], "metal-hammer: cannot read the kernel config /nope: ENOENT"],
      [["--config", "/malformed"], 'metal-hammer: /malformed:2: expected CONFIG_NAME=value, "# CONFIG_NAME is not set", a # comment or a blank line, got "garbage"\n'],
      [["--config", "/comments"], "metal-hammer: /comments: no CONFIG_ lines: not a kernel .config\n"],
      [["--config", "/binary"], "metal-hammer: the kernel config /binary is not UTF-8 text\n"],
      [["--config", "/good", "--modules", "/no.list"], "metal-hammer: cannot read the module list /no.list: ENOENT"],
      [["--config", "/good", "--modules", "/bad.list"], 'metal-hammer: /bad.list:1: "net?" is not a module name'],
      [["--config", "/good", "--modules", "virtio_net,e1000!"], 'metal-hammer: --modules: "e1000!" is not a module name'],
      [["--config", "/good", "--modules", "/emptydir"], "metal-hammer: the module directory /emptydir holds no *.ko, *.ko.xz, *.ko.zst or *.ko.gz files\n"],
      [["--config", "/good", "--fragment", "/badfrag"], "metal-hammer: /badfrag:2: CONFIG_A comes before any class marker\n"],
    ])("%p", async (args, message) => {
      const c = captureContext(
        files({
          "/malformed": "CONFIG_A=y\ngarbage\n",
          "/comments": "# nothing\n",
          "/binary": new Uint8Array([0x43, 0xff, 0xfe, 0x0a]),
          "/bad.list": "virtio net?\n",
          "/emptydir/README": "x",
          "/badfrag": "# r\nCONFIG_A=y\n",
        }),
      );
      const code = await runCli(["kconfig", "check", ...(args.includes("--fragment") ? [] : ["--fragment", "/f.config"]), ...args], c.ctx);
      expect(code).toBe(INPUT);
      expect(c.err()).toStartWith(message);
      expect(c.err().trimEnd().split("\n")).toHaveLength(1);
      expect(c.out()).toBe("");
    });
  });

  test("a missing --config or an unknown subcommand is a usage error", async () => {
    for (const args of [
      ["kconfig", "check"],
      ["kconfig", "bogus"],
      ["kconfig", "check", "--config", "/good", "--nope"],
    ]) {
      const c = captureContext(files());
      expect(await runCli(args, c.ctx)).toBe(EXIT_CODES.usage.exit);
    }
  });

  test("--help documents the check", async () => {
    const c = captureContext();
    expect(await runCli(["kconfig", "check", "--help"], c.ctx)).toBe(0);
    expect(c.out()).toContain("Usage: metal-hammer kconfig check");
    expect(c.out()).toContain("--modules <list-or-path>");
  });
});
