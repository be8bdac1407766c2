/** Which installer finishes the install: the image's own in metal-hammer's order, else the carried os-installer, else exit 54 naming both. */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../src/platform/errors.ts";
import type { CarriedInstaller } from "../../src/install/carried-installer.ts";
import { chooseInstaller } from "../../src/install/installer-choice.ts";
import { imageInstallers } from "../../src/install/installer.ts";

const CARRIED: CarriedInstaller = {
  present: true,
  path: "/usr/lib/metal-hammer/os-installer",
  info: { name: "os-installer", version: "v0.3.1", sha256: "ab".repeat(32), bytes: 1000, kind: "elf-static" },
};
const NONE: CarriedInstaller = {
  present: false,
  why: "this initramfs carries no os-installer (no /usr/lib/metal-hammer/os-installer.json; make initramfs OS_INSTALLER=PATH OS_INSTALLER_VERSION=vX.Y.Z)",
};

describe("chooseInstaller", () => {
  test("/install-go wins over /os-installer and /install.sh, as metal-hammer runs it first", () => {
    const c = chooseInstaller(new Set(["/install.sh", "/os-installer", "/install-go"]), CARRIED);
    expect(c).toEqual({ kind: "image", binary: "/install-go", reason: "the image carries /install-go (metal-images 2022-10 to 2026-08; it reads /etc/metal/install.yaml)" });
  });

  test("an image's own /os-installer wins over /install.sh and over the carried one", () => {
    expect(chooseInstaller(new Set(["/install.sh", "/os-installer"]), CARRIED).binary).toBe("/os-installer");
    expect(chooseInstaller(new Set(["/install.sh"]), CARRIED)).toMatchObject({ kind: "image", binary: "/install.sh" });
  });

  test("an image without an installer gets the carried os-installer, copied in as /os-installer", () => {
    const c = chooseInstaller(new Set(), CARRIED);
    expect(c).toEqual({
      kind: "carried",
      binary: "/os-installer",
      source: "/usr/lib/metal-hammer/os-installer",
      info: CARRIED.info,
      reason:
        "the image has none of /install-go, /os-installer, /install.sh (executable): the os-installer v0.3.1 (sha256 abababababab) this initramfs carries, copied in as /os-installer",
    });
  });

  test("no installer in the image and none carried: exit 54 naming both facts and the build variable", () => {
    const e = (() => {
      try {
        chooseInstaller(new Set(), NONE);
      } catch (x) {
        return x;
      }
    })() as AgentError;
    expect(e).toBeInstanceOf(AgentError);
    expect(e.code).toBe("installer");
    expect(e.message).toBe(
      "installer: the image has none of /install-go, /os-installer, /install.sh (executable), and this initramfs carries no os-installer (no /usr/lib/metal-hammer/os-installer.json; make initramfs OS_INSTALLER=PATH OS_INSTALLER_VERSION=vX.Y.Z)",
    );
  });
});

describe("imageInstallers", () => {
  test("finds only executable regular candidates in the unpacked image", async () => {
    const root = mkdtempSync(join(tmpdir(), "mh-choice-"));
    try {
      writeFileSync(join(root, "install-go"), "#!/bin/sh\n");
      chmodSync(join(root, "install-go"), 0o644);
      writeFileSync(join(root, "install.sh"), "#!/bin/sh\n");
      chmodSync(join(root, "install.sh"), 0o755);
      expect([...(await imageInstallers(root))]).toEqual(["/install.sh"]);
      chmodSync(join(root, "install-go"), 0o755);
      expect([...(await imageInstallers(root))].sort()).toEqual(["/install-go", "/install.sh"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
