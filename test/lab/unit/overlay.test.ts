import { describe, expect, test } from "bun:test";
import { decodeCpio } from "../../../initramfs/lib/cpio.ts";
import { overlayCpio } from "../../../lab/standins/overlay.ts";

describe("per-run overlay archive", () => {
  test("holds exactly the given files with their parents, 4-byte aligned so an archive can follow", () => {
    const pem = new TextEncoder().encode("-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n");
    const bytes = overlayCpio([{ path: "etc/metal/lab-ca.pem", data: pem }]);
    expect(bytes.length % 4).toBe(0);
    const entries = decodeCpio(bytes);
    expect(entries.map((e) => e.name)).toEqual(["etc", "etc/metal", "etc/metal/lab-ca.pem"]);
    expect(new TextDecoder().decode(entries[2]?.data)).toContain("BEGIN CERTIFICATE");
    expect(entries[2]?.fields.mode).toBe(0o100644);
  });
});
