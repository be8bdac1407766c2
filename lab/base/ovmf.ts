/**
 * UEFI firmware for the lab's VMs: OVMF from Debian's `ovmf` package. The code is shared
 * read-only; every VM gets its own writable copy of the variable store (boot entries,
 * boot order), made in the lab's own temp dir, so VMs never see each other's NVRAM and
 * the package's template stays untouched.
 */
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pemCertificates, x509SignatureLists } from "../../ipxe/efi-siglist.ts";

/** 4 MiB flash layout (Debian's default since bookworm), without Secure Boot keys enrolled. */
export const OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd";
export const OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd";

export type Firmware = "bios" | "uefi";

/** What is missing for UEFI VMs, as one line naming the package; "" when nothing is. */
export function ovmfMissing(): string {
  const gone = [OVMF_CODE, OVMF_VARS].filter((f) => !existsSync(f));
  return gone.length ? `${gone.join(", ")} missing (apt-get install ovmf)` : "";
}

/**
 * QEMU arguments booting a VM with OVMF: the code read-only, a fresh copy of the variable
 * store as `<dir>/<vm>-OVMF_VARS.fd` (writable: that VM's NVRAM). The copy stays for
 * the VM's life (a power cycle keeps the boot entries written into it).
 */
export function ovmfArgs(dir: string, vm: string, o: { readonly httpsCaPem?: string } = {}): string[] {
  const missing = ovmfMissing();
  if (missing) throw new Error(`UEFI firmware: ${missing}`);
  const vars = join(dir, `${vm}-OVMF_VARS.fd`);
  if (!existsSync(vars)) copyFileSync(OVMF_VARS, vars);
  const args = ["-drive", `if=pflash,format=raw,unit=0,readonly=on,file=${OVMF_CODE}`, "-drive", `if=pflash,format=raw,unit=1,file=${vars}`];
  if (o.httpsCaPem !== undefined) {
    // The firmware's HTTPS boot CA (TlsCaCertificate), which the ISO's iPXE trusts: efi-siglist.ts.
    const file = join(dir, `${vm}-https-cacerts.esl`);
    writeFileSync(file, x509SignatureLists(pemCertificates(o.httpsCaPem)));
    args.push("-fw_cfg", `name=${OVMF_HTTPS_CACERTS},file=${file}`);
  }
  return args;
}

/** The fw_cfg file OVMF turns into the TlsCaCertificate variable at boot (edk2 OvmfPkg TlsAuthConfigLib). */
export const OVMF_HTTPS_CACERTS = "etc/edk2/https/cacerts";
