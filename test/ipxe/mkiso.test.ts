/**
 * `make iso`'s two steps as a user runs them: render-chain.ts refuses bad options with
 * exit 2 and one line; mkiso.sh builds an ISO that boots on BIOS (ISOLINUX, Debian's
 * ipxe.lkrn + the script) and on UEFI (a FAT El Torito image with Debian's UEFI iPXE as
 * EFI/BOOT/BOOTX64.EFI and the same script as its autoexec.ipxe), byte-identical across
 * builds. No root needed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCa } from "../../lab/standins/pki.ts";

const ROOT = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "mhc-iso-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function render(env: Record<string, string>, out = join(work, "chain.ipxe")) {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "ipxe/render-chain.ts"), out], { env: { PATH: process.env.PATH ?? "", ...env } });
  return { code: r.exitCode, err: r.stderr.toString() };
}

describe("ipxe/render-chain.ts", () => {
  test("writes the script for a valid BOOT_URL", () => {
    const out = join(work, "ok.ipxe");
    expect(render({ BOOT_URL: "http://[2001:db8::b007]/boot.ipxe", ISO_ATTEMPTS: "7" }, out)).toEqual({ code: 0, err: "" });
    const text = readFileSync(out, "utf8");
    expect(text).toStartWith("#!ipxe\n");
    expect(text).toContain("set mh-url http://[2001:db8::b007]/boot.ipxe\n");
    expect(text).toContain("iseq ${mh-try} 7 && goto mh-give-up ||");
  });

  test.each([
    [{}, "BOOT_URL: missing"],
    [{ BOOT_URL: "http://192.0.2.1/boot.ipxe" }, 'BOOT_URL="http://192.0.2.1/boot.ipxe": expected'],
    [{ BOOT_URL: "http://[2001:db8::1]/b", ISO_ATTEMPTS: "many" }, 'ISO_ATTEMPTS="many": expected an integer from 1 to 100'],
    [{ BOOT_URL: "http://[2001:db8::1]/b", ISO_NIC: "eth0" }, 'ISO_NIC="eth0": expected'],
    [{ BOOT_URL: "http://[2001:db8::1]/b", ISO_GIVE_UP: "poweroff" }, 'ISO_GIVE_UP="poweroff": expected one of reboot, exit, shell'],
  ])("exit 2 and one line naming the option for %o", (env, line) => {
    const r = render(env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.err).toStartWith(line);
    expect(r.err.trim().split("\n")).toHaveLength(1);
  });

  test("https builds with a warning about iPXE's built-in roots", () => {
    const r = render({ BOOT_URL: "https://metal-boot.example/boot.ipxe" });
    expect(r.code).toBe(0);
    expect(r.err).toContain("warning: BOOT_URL is https");
  });

  test("https with ISO_CA: no warning, and the CA as the firmware's HTTPS boot CA list beside the script", () => {
    const ca = makeCa(join(work, "pki"), "installation-ca", "rsa");
    const out = join(work, "tls.iso.ipxe");
    const r = render({ BOOT_URL: "https://metal-boot.example/boot.ipxe", ISO_CA: ca.certFile }, out);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain("warning");
    expect(r.err).toContain("tls.iso.https-ca.esl: the installation's CA as the servers' UEFI HTTPS boot CA (TlsCaCertificate)");
    const esl = readFileSync(join(work, "tls.iso.https-ca.esl"));
    const der = Buffer.from(ca.pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
    expect(esl.subarray(44).equals(der)).toBe(true);
  });

  test("ISO_CA with an EC key is refused: Debian's iPXE cannot verify it", () => {
    const ca = makeCa(join(work, "pki"), "ec-ca");
    const r = render({ BOOT_URL: "https://metal-boot.example/boot.ipxe", ISO_CA: ca.certFile });
    expect(r.code).toBe(2);
    expect(r.err).toStartWith(`ISO_CA="${ca.certFile}": expected a CA with an RSA key (CN=ec-ca has ec: Debian's iPXE cannot verify it)`);
  });
});

/** Debian trixie's UEFI iPXE (make ipxe-efi), the one mkiso.sh takes by default. */
const IPXE_EFI = join(ROOT, "build/ipxe-efi/ipxe.efi");
const missingTools = [
  "/usr/bin/xorriso",
  "/usr/bin/mcopy",
  "/usr/lib/ipxe/ipxe.lkrn",
  "/usr/lib/ISOLINUX/isolinux.bin",
  "/usr/lib/syslinux/modules/bios/ldlinux.c32",
  IPXE_EFI,
].filter((f) => !existsSync(f));
const haveTools = missingTools.length === 0;

describe.skipIf(!haveTools)(`ipxe/mkiso.sh${haveTools ? "" : ` (skipped: missing ${missingTools.join(", ")}; make deps ipxe-efi)`}`, () => {
  const mkiso = (script: string, out: string, env: Record<string, string> = {}) =>
    Bun.spawnSync([join(ROOT, "ipxe/mkiso.sh"), script, out], { env: { ...process.env, SOURCE_DATE_EPOCH: "1700000000", ...env } });

  test("the ISO holds ISOLINUX, Debian's ipxe.lkrn and the script, and boots ipxe.lkrn with the script as initrd", () => {
    const script = join(work, "iso.ipxe");
    expect(render({ BOOT_URL: "http://[2001:db8::b007]/boot.ipxe" }, script).code).toBe(0);
    const iso = join(work, "a.iso");
    expect(mkiso(script, iso).exitCode).toBe(0);
    const list = Bun.spawnSync(["xorriso", "-indev", iso, "-find", "/", "-type", "f"]).stdout.toString();
    for (const f of ["/chain.ipxe", "/ipxe.lkrn", "/isolinux.bin", "/isolinux.cfg", "/ldlinux.c32"]) expect(list).toContain(`'${f}'`);
    const cfg = join(work, "isolinux.cfg");
    Bun.spawnSync(["xorriso", "-osirrox", "on", "-indev", iso, "-extract", "/isolinux.cfg", cfg]);
    expect(readFileSync(cfg, "utf8")).toMatch(/KERNEL ipxe\.lkrn\n\s*APPEND initrd=chain\.ipxe\n/);
    const inner = join(work, "inner.ipxe");
    Bun.spawnSync(["xorriso", "-osirrox", "on", "-indev", iso, "-extract", "/chain.ipxe", inner]);
    expect(readFileSync(inner, "utf8")).toBe(readFileSync(script, "utf8"));
    const boot = Bun.spawnSync(["xorriso", "-indev", iso, "-report_el_torito", "plain"]).stdout.toString();
    expect(boot).toMatch(/El Torito img path :\s+1\s+\/isolinux\.bin/);
  });

  test("UEFI: the ISO's EFI boot image is a FAT file system with Debian's UEFI iPXE as EFI/BOOT/BOOTX64.EFI and the script as its autoexec.ipxe", () => {
    const script = join(work, "efi.ipxe");
    expect(render({ BOOT_URL: "http://[2001:db8::b007]/boot.ipxe" }, script).code).toBe(0);
    const iso = join(work, "efi.iso");
    expect(mkiso(script, iso).exitCode).toBe(0);
    const boot = Bun.spawnSync(["xorriso", "-indev", iso, "-report_el_torito", "plain"]).stdout.toString();
    expect(boot).toMatch(/El Torito boot img :\s+2\s+UEFI\s+y\s+none/);
    expect(boot).toMatch(/El Torito img path :\s+2\s+\/efiboot\.img/);
    const img = join(work, "efiboot.img");
    Bun.spawnSync(["xorriso", "-osirrox", "on", "-indev", iso, "-extract", "/efiboot.img", img]);
    const fromFat = (path: string, out: string) => {
      const r = Bun.spawnSync(["mcopy", "-n", "-i", img, `::${path}`, out]);
      expect(r.exitCode).toBe(0);
      return readFileSync(out);
    };
    expect(fromFat("EFI/BOOT/BOOTX64.EFI", join(work, "BOOTX64.EFI")).equals(readFileSync(IPXE_EFI))).toBe(true);
    expect(fromFat("EFI/BOOT/autoexec.ipxe", join(work, "autoexec.ipxe")).toString()).toBe(readFileSync(script, "utf8"));
  });

  test("refuses to build without a UEFI iPXE, exit 2 naming it and make ipxe-efi", () => {
    const script = join(work, "noefi.ipxe");
    expect(render({ BOOT_URL: "http://[2001:db8::b007]/boot.ipxe" }, script).code).toBe(0);
    const r = mkiso(script, join(work, "noefi.iso"), { IPXE_EFI: join(work, "nope.efi") });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain(`mkiso: ${join(work, "nope.efi")}: missing (make ipxe-efi`);
    expect(existsSync(join(work, "noefi.iso"))).toBe(false);
  });

  test("two builds from the same inputs are byte-identical (BIOS and UEFI parts), whatever the inputs' mtimes", () => {
    const script = join(work, "repro.ipxe");
    expect(render({ BOOT_URL: "http://[2001:db8::b007]/boot.ipxe" }, script).code).toBe(0);
    expect(mkiso(script, join(work, "r1.iso")).exitCode).toBe(0);
    utimesSync(script, new Date(), new Date(Date.now() - 86_400_000));
    expect(mkiso(script, join(work, "r2.iso")).exitCode).toBe(0);
    const hash = (f: string) => new Bun.CryptoHasher("sha256").update(readFileSync(f)).digest("hex");
    expect(hash(join(work, "r1.iso"))).toBe(hash(join(work, "r2.iso")));
    expect(mkiso(script, join(work, "r3.iso"), { SOURCE_DATE_EPOCH: "1700000001" }).exitCode).toBe(0);
    expect(hash(join(work, "r3.iso"))).not.toBe(hash(join(work, "r1.iso")));
  });

  test("refuses a script that is not an iPXE script, exit 2", () => {
    const bad = join(work, "bad.ipxe");
    writeFileSync(bad, "echo hi\n");
    const r = mkiso(bad, join(work, "bad.iso"));
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain("expected an iPXE script starting with #!ipxe");
  });
});
