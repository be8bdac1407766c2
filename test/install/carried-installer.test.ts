/** The carried os-installer's facts: read from the initramfs, validated, named in Register's version. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CARRIED_INSTALLER_INFO_PATH, parseCarriedInstallerInfo, readCarriedInstaller, versionWithCarried } from "../../src/install/carried-installer.ts";

const INFO = { name: "os-installer", version: "v0.3.1", sha256: "0123456789abcdef".repeat(4), bytes: 14_000_000, kind: "elf-static" };

describe("parseCarriedInstallerInfo", () => {
  test("takes the build's facts as written", () => {
    expect(parseCarriedInstallerInfo(JSON.stringify(INFO), "x.json")).toEqual(INFO as never);
  });

  test.each([
    ["{", "x.json: not JSON"],
    [JSON.stringify({ ...INFO, sha256: "ABC" }), "x.json: sha256: "],
    [JSON.stringify({ ...INFO, version: "v1 with space" }), "x.json: version: "],
    [JSON.stringify({ ...INFO, kind: "dynamic" }), "x.json: kind: "],
    [JSON.stringify({ ...INFO, extra: 1 }), "x.json: (top): "],
    [JSON.stringify({ ...INFO, bytes: 0 }), "x.json: bytes: "],
  ])("refuses %s naming the field", (text, start) => {
    expect(() => parseCarriedInstallerInfo(text, "x.json")).toThrow(start);
  });
});

describe("readCarriedInstaller", () => {
  test("absent, present, broken", () => {
    const root = mkdtempSync(join(tmpdir(), "mh-carried-"));
    try {
      const none = readCarriedInstaller(root);
      expect(none).toEqual({
        present: false,
        why: "this initramfs carries no os-installer (no /usr/lib/metal-hammer/os-installer.json; make initramfs OS_INSTALLER=PATH OS_INSTALLER_VERSION=vX.Y.Z)",
      });
      mkdirSync(join(root, "usr/lib/metal-hammer"), { recursive: true });
      writeFileSync(join(root, CARRIED_INSTALLER_INFO_PATH), JSON.stringify(INFO));
      expect(readCarriedInstaller(root)).toEqual({ present: true, path: join(root, "usr/lib/metal-hammer/os-installer"), info: INFO as never });
      writeFileSync(join(root, CARRIED_INSTALLER_INFO_PATH), "[]");
      const broken = readCarriedInstaller(root);
      expect(broken.present).toBe(false);
      expect(!broken.present && broken.why).toStartWith("/usr/lib/metal-hammer/os-installer.json: (top): ");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("versionWithCarried", () => {
  test("Register's metal_hammer_version names the carried installer, within the 256 characters the apiserver allows", () => {
    const v = versionWithCarried("0.1.0 (abcdef123456)", { present: true, path: "/p", info: INFO as never });
    expect(v).toBe("0.1.0 (abcdef123456), carries os-installer v0.3.1 (sha256 0123456789ab)");
    const longest = versionWithCarried(`0.1.0 (${"f".repeat(40)})`, { present: true, path: "/p", info: { ...INFO, name: "n".repeat(64), version: "v".repeat(64) } as never });
    expect(longest.length).toBeLessThanOrEqual(256);
    expect(versionWithCarried("0.1.0 (x)", { present: false, why: "none" })).toBe("0.1.0 (x)");
  });
});
