import { describe, expect, test } from "bun:test";
import { pemCertificates, x509SignatureLists } from "../../ipxe/efi-siglist.ts";

describe("EFI signature lists (the TlsCaCertificate variable's format)", () => {
  test("one list per certificate: EFI_CERT_X509_GUID, sizes little-endian, owner GUID, then the DER", () => {
    const der = Uint8Array.from([0x30, 0x03, 0x02, 0x01, 0x05]);
    expect(Buffer.from(x509SignatureLists([der])).toString("hex")).toBe("a159c0a5e494a74a87b5ab155c2bf072" + "31000000" + "00000000" + "15000000" + "00".repeat(16) + "3003020105");
    expect(x509SignatureLists([der, der]).byteLength).toBe(2 * 49);
  });
  test("PEM certificates in order; other blocks ignored", () => {
    const pem =
      "-----BEGIN CERTIFICATE-----\nMAMCAQU=\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nMAMCAQY=\n-----END CERTIFICATE-----\n";
    expect(pemCertificates(pem).map((d) => Buffer.from(d).toString("hex"))).toEqual(["3003020105", "3003020106"]);
  });
  test("no certificate: refused", () => {
    expect(() => x509SignatureLists([])).toThrow("no certificate given");
  });
});
