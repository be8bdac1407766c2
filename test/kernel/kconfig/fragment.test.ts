import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { BUILTIN_FRAGMENT_TEXT } from "../../../src/kernel/kconfig/builtin-fragment.ts";
import { CLASSES, parseFragment } from "../../../src/kernel/kconfig/fragment.ts";

function fragmentError(text: string): string {
  try {
    parseFragment(text, "f.config");
  } catch (e) {
    expect((e as AgentError).code).toBe("kconfig_input");
    return (e as AgentError).message;
  }
  throw new Error("expected a kconfig_input error");
}

const SMALL = `# a header comment

# @required-builtin
# Group heading, overwritten by the reason below.
#
# IPv6 must be there before any module
CONFIG_IPV6=y

# @required
# module: virtio_net
# the lab NIC
CONFIG_VIRTIO_NET=y
# module: nvme nvme-core
# NVMe disks
CONFIG_BLK_DEV_NVME=m

# @recommended
# optimistic DAD
CONFIG_IPV6_OPTIMISTIC_DAD=y
# forced lockdown
# CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY is not set

# @must-not
# the cmdline must come from the bootloader
# CONFIG_CMDLINE_OVERRIDE is not set
`;

describe("parseFragment", () => {
  test("reads classes, reasons, module names and values", () => {
    const f = parseFragment(SMALL, "small");
    expect(f.entries.map((e) => [e.name, e.class, e.value, e.reason, e.modules, e.line])).toEqual([
      ["IPV6", "required-builtin", "y", "IPv6 must be there before any module", [], 7],
      ["VIRTIO_NET", "required", "y", "the lab NIC", ["virtio_net"], 12],
      ["BLK_DEV_NVME", "required", "m", "NVMe disks", ["nvme", "nvme_core"], 15],
      ["IPV6_OPTIMISTIC_DAD", "recommended", "y", "optimistic DAD", [], 19],
      ["LOCK_DOWN_KERNEL_FORCE_INTEGRITY", "recommended", "n", "forced lockdown", [], 21],
      ["CMDLINE_OVERRIDE", "must-not", "n", "the cmdline must come from the bootloader", [], 25],
    ]);
  });

  test.each([
    ["# @optional\n# r\nCONFIG_A=y\n", "f.config:1: unknown class @optional (expected one of @required-builtin, @required, @recommended, @must-not)"],
    ["# r\nCONFIG_A=y\n", "f.config:2: CONFIG_A comes before any class marker"],
    ["# @required-builtin\nCONFIG_A=y\n", 'f.config:2: CONFIG_A has no reason (a "# ..." line right above it)'],
    ["# @required-builtin\n# r\n\nCONFIG_A=y\n", "f.config:4: CONFIG_A has no reason"],
    ["# @required-builtin\n# r\n#\nCONFIG_A=y\n", "f.config:4: CONFIG_A has no reason"],
    ["# @required-builtin\n# r\nCONFIG_A=y\n# r\nCONFIG_A=y\n", "f.config:5: CONFIG_A is listed twice (first on line 3)"],
    ["# @required-builtin\n# r\nCONFIG_A=m\n", "f.config:3: CONFIG_A: @required-builtin options must be =y"],
    ["# @required\n# module: a\n# r\n# CONFIG_A is not set\n", "f.config:4: CONFIG_A: @required options must be =y or =m"],
    ["# @required\n# r\nCONFIG_A=y\n", 'f.config:3: CONFIG_A: @required options need a "# module:" line'],
    ["# @must-not\n# r\nCONFIG_A=y\n", 'f.config:3: CONFIG_A: @must-not options must be "# CONFIG_A is not set"'],
    ['# @recommended\n# r\nCONFIG_A="s"\n', 'f.config:3: CONFIG_A: the fragment sets only y, m or "is not set", got "\\"s\\""'],
    ["# @recommended\n# see CONFIG_B\n# r\nCONFIG_A=y\n", "f.config:2: a comment spells an option with its CONFIG_ prefix"],
    ["# @recommended\n# module:\n# r\nCONFIG_A=y\n", 'f.config:2: "# module:" expects module names, got ""'],
    ["# @recommended\n# module: ok bad!\n# r\nCONFIG_A=y\n", 'f.config:2: "# module:" expects module names'],
    ["# @recommended\nA=y\n", 'f.config:2: expected CONFIG_NAME=y|m, "# CONFIG_NAME is not set", "# @class", "# module: ..." or a # comment, got "A=y"'],
    ["# only comments\n", "f.config: the fragment lists no options"],
  ])("malformed fragment %#: %p", (text, message) => {
    expect(fragmentError(text)).toStartWith(message);
  });
});

describe("the embedded fragment (kernel-config/metal-hammer.config)", () => {
  const f = parseFragment(BUILTIN_FRAGMENT_TEXT, "embedded");

  test("is the file in kernel-config/, byte for byte", async () => {
    expect(BUILTIN_FRAGMENT_TEXT).toBe(await Bun.file(new URL("../../../kernel-config/metal-hammer.config", import.meta.url)).text());
  });

  test("uses every class and gives every option a reason", () => {
    expect(new Set(f.entries.map((e) => e.class))).toEqual(new Set(CLASSES));
    for (const e of f.entries) expect(e.reason.length).toBeGreaterThan(10);
  });

  test("answers MEP-20's question: IPv6 built in, RA features recommended, ip= autoconfig only a warning", () => {
    const get = (n: string) => f.entries.find((e) => e.name === n);
    expect(get("IPV6")).toMatchObject({ class: "required-builtin", value: "y" });
    for (const n of ["IPV6_OPTIMISTIC_DAD", "IPV6_ROUTER_PREF", "IPV6_ROUTE_INFO", "IP_PNP", "IP_PNP_DHCP"]) expect(get(n)?.class).toBe("recommended");
    for (const n of [
      "BLK_DEV_INITRD",
      "RD_GZIP",
      "RD_LZ4",
      "RD_ZSTD",
      "DEVTMPFS",
      "TMPFS",
      "PROC_FS",
      "SYSFS",
      "UNIX",
      "PACKET",
      "EPOLL",
      "EVENTFD",
      "TIMERFD",
      "FUTEX",
      "BINFMT_ELF",
      "SERIAL_8250_CONSOLE",
    ]) {
      expect(get(n)?.class).toBe("required-builtin");
    }
    for (const [n, m] of [
      ["VIRTIO_NET", "virtio_net"],
      ["E1000", "e1000"],
      ["E1000E", "e1000e"],
      ["IGB", "igb"],
      ["IXGBE", "ixgbe"],
      ["I40E", "i40e"],
      ["ICE", "ice"],
      ["MLX5_CORE", "mlx5_core"],
      ["BNXT", "bnxt_en"],
      ["BLK_DEV_NVME", "nvme"],
      ["SATA_AHCI", "ahci"],
      ["VIRTIO_BLK", "virtio_blk"],
      ["MEGARAID_SAS", "megaraid_sas"],
      ["BLK_DEV_MD", "md_mod"],
      ["EFIVAR_FS", "efivarfs"],
      ["NET_VRF", "vrf"],
      ["WATCHDOG_CORE", "watchdog"],
    ] as const) {
      expect(get(n)?.class).toBe("required");
      expect(get(n)?.modules).toContain(m);
    }
  });

  test("has no line merge_config.sh would misread: every word CONFIG_X occurs once, on its option line", () => {
    // merge_config.sh greps each option name as a whole word through the fragment.
    for (const e of f.entries) {
      const hits = BUILTIN_FRAGMENT_TEXT.split("\n").filter((l) => new RegExp(`\\bCONFIG_${e.name}\\b`).test(l));
      expect(hits).toEqual([e.value === "n" ? `# CONFIG_${e.name} is not set` : `CONFIG_${e.name}=${e.value}`]);
    }
  });
});
