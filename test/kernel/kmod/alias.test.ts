import { describe, expect, test } from "bun:test";
import { aliasMatcher, globRegExp, parseModulesAlias, renderModulesAlias } from "../../../src/kernel/kmod/alias.ts";
import { ModuleError } from "../../../src/kernel/kmod/names.ts";

// Lines as Debian 6.1.0-57-amd64's depmod writes them.
const ALIASES = parseModulesAlias(
  [
    "# Aliases extracted from modules themselves.",
    "alias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e",
    "alias pci:v00001AF4d00001000sv*sd*bc*sc*i* virtio_pci",
    "alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci",
    "alias virtio:d00000001v* virtio_net",
    "alias scsi:t-0x00* sd_mod",
    "alias pci:v*d*sv*sd*bc01sc06i01* ahci",
    "alias usb:v13FDp3940d0[0-2]*dc*dsc*dp*ic*isc*ip*in* usb_storage",
    "alias fs-ext4 ext4",
    "alias nvme-core nvme_core",
  ].join("\n"),
);

describe("modules.alias", () => {
  test("a device's modalias finds its driver; one module is reported once", () => {
    const m = aliasMatcher(ALIASES);
    expect(m.modulesFor("pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00")).toEqual(["e1000e"]);
    expect(m.modulesFor("pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00")).toEqual(["virtio_pci"]);
    expect(m.modulesFor("virtio:d00000001v00001AF4")).toEqual(["virtio_net"]);
    expect(m.modulesFor("scsi:t-0x00")).toEqual(["sd_mod"]);
    // The class match: any vendor's AHCI controller (class 01, subclass 06, prog-if 01), e.g. QEMU's ICH9.
    expect(m.modulesFor("pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01")).toEqual(["ahci"]);
    expect(m.modulesFor("pci:v00008086d00002918sv00001AF4sd00001100bc06sc01i00")).toEqual([]);
    expect(m.modulesFor("scsi:t-0x05")).toEqual([]);
  });

  test("fnmatch classes: [0-2] takes 0, 1 and 2 only", () => {
    const m = aliasMatcher(ALIASES);
    expect(m.modulesFor("usb:v13FDp3940d0100dc00dsc00dp00ic08isc06ip50in00")).toEqual(["usb_storage"]);
    expect(m.modulesFor("usb:v13FDp3940d0300dc00dsc00dp00ic08isc06ip50in00")).toEqual([]);
    expect(globRegExp("a[!x]c").test("abc")).toBe(true);
    expect(globRegExp("a[!x]c").test("axc")).toBe(false);
    expect(globRegExp("a.c?").test("abcd")).toBe(false);
  });

  test("the image gets exactly its modules' alias lines", () => {
    expect(renderModulesAlias(ALIASES, new Set(["virtio_net", "ext4"]))).toBe("alias virtio:d00000001v* virtio_net\nalias fs-ext4 ext4\n");
  });

  test("a malformed line is an error naming the file and line", () => {
    expect(() => parseModulesAlias("alias pci:v* e1000e\nalias broken\n", "img/modules.alias")).toThrow(
      new ModuleError('img/modules.alias:2: expected "alias <pattern> <module>", got "alias broken"'),
    );
  });
});
