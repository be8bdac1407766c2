import { describe, expect, test } from "bun:test";
import { configFromCmdline } from "../../../src/config/config.ts";
import { renderBootScript } from "../../../lab/ipxe/boot-script.ts";
import { eui64Address, routerAddress } from "../../../lab/ipxe/eui64.ts";
import { cmdlineFor, parseBootServerConfig, partitionFor, type Partition } from "../../../lab/ipxe/partitions.ts";
import { parseRequestLog } from "../../../lab/ipxe/boot-request-log.ts";

const A: Partition = {
  name: "lab-a",
  prefix: "2001:db8:a::/64",
  kernel: "/k",
  initrd: "/i1",
  initrdVersion: "v1",
  metalBootUrl: "http://[fd00:b007::1]:8080",
  cmdline: "console=ttyS0,115200n8",
  extraInitrds: [],
};
const B: Partition = { ...A, name: "lab-b", prefix: "2001:db8:b::/64", initrd: "/i2", initrdVersion: "v2", metalBootUrl: "https://metal-boot.example/" };
const WIDE: Partition = { ...A, name: "wide", prefix: "2001:db8::/48" };

describe("partitionFor", () => {
  test("the source prefix picks the partition", () => {
    expect(partitionFor("2001:db8:a:0:5054:ff:fe12:3456", [A, B])?.name).toBe("lab-a");
    expect(partitionFor("2001:db8:b::99", [A, B])?.name).toBe("lab-b");
  });

  test("the longest matching prefix wins, whatever the order", () => {
    expect(partitionFor("2001:db8:a::5", [WIDE, A])?.name).toBe("lab-a");
    expect(partitionFor("2001:db8:0:c::5", [WIDE, A])?.name).toBe("wide");
  });

  test.each(["2001:db8:c::1", "10.0.0.1", "::ffff:10.0.0.1", "not-an-address", ""])("no partition for %p", (src) => {
    expect(partitionFor(src, [A, B])).toBeUndefined();
  });
});

describe("cmdlineFor", () => {
  test("carries metal-boot's URL and the partition, and the agent's parser reads them back", () => {
    const line = cmdlineFor(A);
    expect(line).toBe("METAL_MODE=l3 METAL_BOOT_URL=http://[fd00:b007::1]:8080 METAL_PARTITION=lab-a METAL_ALLOW_HTTP=1 console=ttyS0,115200n8");
    const c = configFromCmdline(line);
    expect(c.partition).toBe("lab-a");
    expect(c.metalBootUrl.href).toBe("http://[fd00:b007::1]:8080/");
    expect(c.allowHttp).toBe(true);
  });

  test("https metal-boot needs no http opt-in", () => {
    expect(cmdlineFor(B)).not.toContain("METAL_ALLOW_HTTP");
    expect(configFromCmdline(cmdlineFor(B)).allowHttp).toBe(false);
  });
});

describe("renderBootScript", () => {
  test("the console by manufacturer as pixie picks it, kernel with it and the partition's cmdline, then the partition's versioned initrd", () => {
    expect(renderBootScript(A, "http://[fd00:b007::1]:8080/", "2001:db8:a::5")).toBe(
      [
        "#!ipxe",
        "# metal-boot (lab stand-in, boot side): partition lab-a for 2001:db8:a::5",
        "echo metal-boot: partition lab-a, metal-hammer initrd v1",
        // pixiecore/boot.ipxe:29-34, the lines as pixie writes them.
        "set console ttyS1",
        "set sp:hex 20 && set sp ${sp:string}",
        "iseq ${manufacturer} Dell${sp}Inc. && set console ttyS0 ||",
        "iseq ${manufacturer} Giga${sp}Computing && set console ttyS0 ||",
        "iseq ${manufacturer} QEMU && set console ttyS0 ||",
        "iseq ${manufacturer} FUJITSU && set console ttyS0 ||",
        // pixiecore/http.go:225: first on the line, so a partition's own console= wins.
        `kernel http://[fd00:b007::1]:8080/p/lab-a/vmlinuz console=\${console},115200n8 ${cmdlineFor(A)}`,
        "initrd http://[fd00:b007::1]:8080/p/lab-a/initrd-v1.img",
        "boot",
        "",
      ].join("\n"),
    );
  });
});

describe("renderBootScript with extra initrds", () => {
  test("each extra initrd follows the main one, in order (the kernel unpacks them over it)", () => {
    const p = {
      ...A,
      extraInitrds: [
        { name: "metal-ca.cpio", path: "/x/ca.cpio" },
        { name: "more.cpio", path: "/x/m" },
      ],
    };
    const lines = renderBootScript(p, "http://[fd00:b007::1]:8080", "2001:db8:a::5").split("\n");
    expect(lines.filter((l) => l.startsWith("initrd "))).toEqual([
      "initrd http://[fd00:b007::1]:8080/p/lab-a/initrd-v1.img",
      "initrd http://[fd00:b007::1]:8080/p/lab-a/metal-ca.cpio",
      "initrd http://[fd00:b007::1]:8080/p/lab-a/more.cpio",
    ]);
    expect(lines.at(-2)).toBe("boot");
  });
});

describe("parseBootServerConfig", () => {
  const ok = { listen: { host: "fd00:b007::1", port: 8080 }, publicUrl: "http://[fd00:b007::1]:8080", partitions: [A] };

  test("accepts a valid configuration", () => {
    expect(parseBootServerConfig(ok).partitions[0]?.name).toBe("lab-a");
  });

  test.each([
    ["no partitions", { ...ok, partitions: [] }, "partitions"],
    ["an IPv4 prefix", { ...ok, partitions: [{ ...A, prefix: "10.0.0.0/8" }] }, "partitions.0.prefix"],
    ["a bad name", { ...ok, partitions: [{ ...A, name: "Lab A" }] }, "partitions.0.name"],
    ["a duplicate", { ...ok, partitions: [A, A] }, "duplicate name lab-a"],
    ["an iPXE expansion in the cmdline", { ...ok, partitions: [{ ...A, cmdline: "x=${y}" }] }, "partitions.lab-a.cmdline"],
    ["a bad listen host", { ...ok, listen: { host: "nope", port: 8080 } }, "listen.host"],
    ["an extra initrd name with a slash", { ...ok, partitions: [{ ...A, extraInitrds: [{ name: "../ca", path: "/x" }] }] }, "partitions.0.extraInitrds.0.name"],
  ])("rejects %s, naming the field", (_label, raw, what) => {
    expect(() => parseBootServerConfig(raw)).toThrow(what);
  });
});

describe("eui64Address", () => {
  test("the address iPXE and Linux took for 52:54:00:12:34:56 in the lab", () => {
    expect(eui64Address("2001:db8:a::/64", "52:54:00:12:34:56")).toBe("2001:db8:a:0:5054:ff:fe12:3456");
  });

  test("flips the universal/local bit", () => {
    expect(eui64Address("fd00::/64", "00:00:00:00:00:01")).toBe("fd00::200:ff:fe00:1");
  });

  test.each([
    ["2001:db8::/48", "52:54:00:12:34:56"],
    ["2001:db8::/64", "52:54:00:12:34"],
    ["2001:db8::/64", "zz:54:00:12:34:56"],
  ])("rejects %p %p", (p, m) => {
    expect(() => eui64Address(p, m)).toThrow();
  });
});

describe("parseRequestLog", () => {
  test("sorts by arrival and rejects a malformed line by number", () => {
    const l = (start: number, path: string) => JSON.stringify({ start, end: start + 1, method: "GET", path, src: "::1", status: 200, bytes: 3 });
    expect(parseRequestLog(`${l(2, "/b")}\n${l(1, "/a")}\n`).map((e) => e.path)).toEqual(["/a", "/b"]);
    expect(() => parseRequestLog(`${l(1, "/a")}\n{"start":1}\n`)).toThrow("line 2");
    expect(() => parseRequestLog("nope\n")).toThrow("line 1: not JSON");
  });
});

describe("routerAddress", () => {
  test("the first address of the port's /64", () => {
    expect(routerAddress("2001:db8:a::/64")).toBe("2001:db8:a::1");
    expect(routerAddress("2001:db8:0:c::/64")).toBe("2001:db8:0:c::1");
  });

  test("refuses anything but an IPv6 /64", () => {
    expect(() => routerAddress("2001:db8::/48")).toThrow("expected an IPv6 /64");
    expect(() => routerAddress("10.0.0.0/24")).toThrow("expected an IPv6 /64");
  });
});
