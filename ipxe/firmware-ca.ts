/**
 * ISO_CA checked and turned into the firmware's HTTPS boot CA list (pure): at least one
 * certificate, each a CA with an RSA key. Why RSA: Debian trixie's iPXE refuses an EC
 * P-256 chain ("Operation not permitted", https://ipxe.org/410de18f; measured under OVMF),
 * so a P-256 CA would build an ISO that never boots.
 */
import { X509Certificate } from "node:crypto";
import { usage } from "./chain-script.ts";
import { pemCertificates, x509SignatureLists } from "./efi-siglist.ts";

export function firmwareCaList(file: string, pem: string): Uint8Array {
  const ders = pemCertificates(pem);
  if (ders.length === 0) throw usage("ISO_CA", file, "a PEM file with the installation's CA certificate(s)");
  for (const der of ders) {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(der);
    } catch {
      throw usage("ISO_CA", file, "PEM certificates that parse as X.509");
    }
    if (!cert.ca) throw usage("ISO_CA", file, `CA certificates (${cert.subject.replaceAll("\n", ", ")} is not a CA)`);
    const kind = cert.publicKey.asymmetricKeyType;
    if (kind !== "rsa") throw usage("ISO_CA", file, `a CA with an RSA key (${cert.subject.replaceAll("\n", ", ")} has ${kind}: Debian's iPXE cannot verify it)`);
  }
  return x509SignatureLists(ders);
}
