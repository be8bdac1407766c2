import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headerNumber, normaliseMemberPath, TarScanError, TarScanner, type TarMember } from "../../../src/install/oci/tar-scan.ts";

/** A tar made by GNU tar itself (the golden bytes), in the given format. */
function gnuTar(format: "gnu" | "pax" | "ustar", build: (dir: string) => void): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "tarscan-"));
  try {
    build(dir);
    const r = Bun.spawnSync(["tar", "-c", "-f", "-", `--format=${format}`, "--sort=name", "-C", dir, "."]);
    if (r.exitCode !== 0) throw new Error(r.stderr.toString());
    return new Uint8Array(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function scan(tar: Uint8Array, chunk: number): TarMember[] {
  const seen: TarMember[] = [];
  const s = new TarScanner((m) => seen.push(m));
  for (let i = 0; i < tar.byteLength; i += chunk) s.push(tar.subarray(i, i + chunk));
  expect(s.ended).toBe(true);
  return seen;
}

const longDir = `d${"x".repeat(150)}`;
const longName = `f${"y".repeat(120)}`;

function tree(dir: string): void {
  mkdirSync(join(dir, "etc/apt"), { recursive: true });
  writeFileSync(join(dir, "etc/apt/sources.list"), "deb http://deb.debian.org/debian bookworm main\n");
  writeFileSync(join(dir, "etc/.wh.motd"), "");
  writeFileSync(join(dir, "etc/apt/.wh..wh..opq"), "");
  mkdirSync(join(dir, longDir));
  writeFileSync(join(dir, longDir, longName), "z".repeat(1500));
  symlinkSync("/usr/bin", join(dir, "bin"));
}

const expected = [
  { path: "", type: "5" },
  { path: "bin", type: "2" },
  { path: longDir, type: "5" },
  { path: `${longDir}/${longName}`, type: "0" },
  { path: "etc", type: "5" },
  { path: "etc/.wh.motd", type: "0" },
  { path: "etc/apt", type: "5" },
  { path: "etc/apt/.wh..wh..opq", type: "0" },
  { path: "etc/apt/sources.list", type: "0" },
];

describe("member names of a tar stream read as it passes", () => {
  for (const format of ["gnu", "pax"] as const) {
    test(`GNU tar --format=${format}: every member, long names included, in chunks of 1, 511, 7000 bytes`, () => {
      const tar = gnuTar(format, tree);
      for (const chunk of [1, 511, 7000, tar.byteLength]) expect(scan(tar, chunk)).toEqual(expected);
    });
  }

  test("ustar: the prefix field joins the name (a path of 170 characters)", () => {
    const deep = `${"p".repeat(70)}/${"q".repeat(70)}`;
    const tar = gnuTar("ustar", (dir) => {
      mkdirSync(join(dir, deep), { recursive: true });
      writeFileSync(join(dir, deep, "file-of-thirty-characters.txt"), "1");
    });
    expect(scan(tar, 100).map((m) => m.path)).toContain(`${deep}/file-of-thirty-characters.txt`);
  });

  test("data after the end-of-archive marker is ignored; a header with a wrong checksum is refused", () => {
    const tar = gnuTar("gnu", tree);
    const withTail = new Uint8Array(tar.byteLength + 4096).fill(0);
    withTail.set(tar);
    withTail.fill(0x41, tar.byteLength);
    expect(scan(withTail, 4096)).toEqual(expected);
    const bad = tar.slice();
    bad[0] = 0x2f;
    expect(() => new TarScanner(() => {}).push(bad)).toThrow(TarScanError);
  });

  test("numbers: octal with NUL/space padding and GNU base-256 (files over 8 GiB)", () => {
    expect(headerNumber(new TextEncoder().encode("00000001750\0"), 0, 12)).toBe(0o1750);
    const b256 = new Uint8Array(12);
    b256[0] = 0x80;
    b256[7] = 0x02; // 2 << 32 = 8 GiB
    expect(headerNumber(b256, 0, 12)).toBe(2 * 2 ** 32);
    expect(normaliseMemberPath("./etc//apt/")).toBe("etc/apt");
    expect(normaliseMemberPath("./")).toBe("");
  });
});
