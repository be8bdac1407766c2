/**
 * CA certificates as an EFI_SIGNATURE_LIST (UEFI 2.10 32.4.1), the format of the
 * `TlsCaCertificate` variable that UEFI HTTPS boot trusts and that iPXE (since
 * ipxe/ipxe@ddc2d928d, in Debian trixie's ipxe.efi) reads at start-up and trusts as roots.
 * OVMF sets that variable from the fw_cfg file `etc/edk2/https/cacerts` (edk2
 * OvmfPkg/Library/TlsAuthConfigLib), the lab's stand-in for an operator setting the
 * server's HTTPS boot CA in its firmware (BIOS setup or the BMC). Pure.
 */

/** EFI_CERT_X509_GUID a5c059a1-94e4-4aa7-87b5-ab155c2bf072, in its mixed-endian wire form. */
const EFI_CERT_X509_GUID = Uint8Array.from([0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a, 0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72]);

/** The DER bytes of every CERTIFICATE block in a PEM text, in order. */
export function pemCertificates(pem: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g))
    out.push(Uint8Array.from(Buffer.from((m[1] ?? "").replace(/\s+/g, ""), "base64")));
  return out;
}

/** One signature list per certificate (X.509 entries differ in size), owner GUID `owner` (16 bytes; zero by default). */
export function x509SignatureLists(ders: readonly Uint8Array[], owner = new Uint8Array(16)): Uint8Array {
  if (ders.length === 0) throw new Error("EFI signature list: no certificate given");
  const lists = ders.map((der) => {
    const size = 16 + der.byteLength;
    const out = new Uint8Array(28 + size);
    const v = new DataView(out.buffer);
    out.set(EFI_CERT_X509_GUID, 0);
    v.setUint32(16, out.byteLength, true); // SignatureListSize
    v.setUint32(20, 0, true); // SignatureHeaderSize
    v.setUint32(24, size, true); // SignatureSize
    out.set(owner, 28);
    out.set(der, 44);
    return out;
  });
  return Uint8Array.from(lists.flatMap((l) => [...l]));
}
