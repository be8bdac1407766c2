import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { CpioError, decodeCpio, encodeCpio, type CpioEntry } from "../../initramfs/lib/cpio.ts";

const ascii = (s: string): number[] => [...Buffer.from(s, "latin1")];
const header = (fields: number[], name: string): number[] => {
  const text = "070701" + fields.map((f) => f.toString(16).padStart(8, "0")).join("");
  const bytes = [...ascii(text), ...ascii(name), 0];
  while (bytes.length % 4) bytes.push(0);
  return bytes;
};

describe("cpio newc encoder", () => {
  test("a directory, a file, a symlink and a device node encode to these exact bytes", () => {
    const entries: CpioEntry[] = [
      { kind: "dir", path: "dev", mode: 0o755 },
      { kind: "char", path: "dev/console", mode: 0o600, major: 5, minor: 1 },
      { kind: "file", path: "init", mode: 0o755, size: 3 },
      { kind: "symlink", path: "sh", target: "/bin/busybox" },
    ];
    const got = encodeCpio(entries, 1234, new Map([["init", new Uint8Array([0x23, 0x21, 0x0a])]]));
    // fields: ino mode uid gid nlink mtime filesize devmaj devmin rdevmaj rdevmin namesize check
    const want = [
      ...header([1, 0o040755, 0, 0, 2, 1234, 0, 0, 0, 0, 0, 4, 0], "dev"),
      ...header([2, 0o020600, 0, 0, 1, 1234, 0, 0, 0, 5, 1, 12, 0], "dev/console"),
      ...header([3, 0o100755, 0, 0, 1, 1234, 3, 0, 0, 0, 0, 5, 0], "init"),
      0x23,
      0x21,
      0x0a,
      0,
      ...header([4, 0o120777, 0, 0, 1, 1234, 12, 0, 0, 0, 0, 3, 0], "sh"),
      ...ascii("/bin/busybox"),
      ...header([0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0], "TRAILER!!!"),
    ];
    expect([...got]).toEqual(want);
    // 110-byte header + "dev\0" = 114 -> padded to 116: the name padding counts the header.
    expect(header([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0], "dev").length).toBe(116);
  });

  test("the same entries always give the same bytes", () => {
    const e: CpioEntry[] = [{ kind: "file", path: "a/b", mode: 0o644, size: 5 }];
    const files = new Map([["a/b", new TextEncoder().encode("hello")]]);
    expect(Buffer.from(encodeCpio(e, 0, files)).equals(Buffer.from(encodeCpio(e, 0, files)))).toBe(true);
  });

  test("GNU cpio extracts what the encoder wrote (independent reader)", () => {
    const dir = mkdtempSync(`${tmpdir()}/mhl-cpio-`);
    try {
      const data = new TextEncoder().encode("payload of 17 b\n!");
      const archive = encodeCpio(
        [
          { kind: "dir", path: "etc", mode: 0o750 },
          { kind: "file", path: "etc/x.conf", mode: 0o640, size: data.length },
          { kind: "symlink", path: "link", target: "etc/x.conf" },
        ],
        86400,
        new Map([["etc/x.conf", data]]),
      );
      const r = Bun.spawnSync(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], { cwd: dir, stdin: archive, stderr: "pipe" });
      expect(r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
      expect(readFileSync(`${dir}/etc/x.conf`, "utf8")).toBe("payload of 17 b\n!");
      expect(statSync(`${dir}/etc/x.conf`).mode & 0o7777).toBe(0o640);
      expect(statSync(`${dir}/etc/x.conf`).mtimeMs).toBe(86400_000);
      expect(readlinkSync(`${dir}/link`)).toBe("etc/x.conf");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("decodeCpio reads back names, modes and data", () => {
    const bytes = encodeCpio([{ kind: "file", path: "/init", mode: 0o700, size: 2 }], 7, new Map([["/init", new Uint8Array([1, 2])]]));
    const [e] = decodeCpio(bytes);
    expect(e?.name).toBe("init");
    expect(e?.fields.mode).toBe(0o100700);
    expect(e?.fields.mtime).toBe(7);
    expect([...(e?.data ?? [])]).toEqual([1, 2]);
  });

  test("paths with .. or empty parts, and modes with type bits, are refused", () => {
    expect(() => encodeCpio([{ kind: "dir", path: "a/../b", mode: 0o755 }], 0)).toThrow(CpioError);
    expect(() => encodeCpio([{ kind: "dir", path: "a//b", mode: 0o755 }], 0)).toThrow(/normalized path/);
    expect(() => encodeCpio([{ kind: "dir", path: "a", mode: 0o40755 }], 0)).toThrow(/permission bits only/);
  });

  test("a file whose data has the wrong length is refused", () => {
    expect(() => encodeCpio([{ kind: "file", path: "f", mode: 0o644, size: 4 }], 0, new Map([["f", new Uint8Array(3)]]))).toThrow(/expected 4 bytes of data, got 3/);
  });

  test("malformed archives are rejected with the offset", () => {
    expect(() => decodeCpio(new Uint8Array(50))).toThrow(/truncated header at offset 0/);
    const bad = new Uint8Array(120).fill(0x30);
    expect(() => decodeCpio(bad)).toThrow(/bad magic "000000"/);
    const good = encodeCpio([{ kind: "dir", path: "d", mode: 0o755 }], 0);
    expect(() => decodeCpio(good.subarray(0, 112))).toThrow(/truncated header at offset 112/);
  });
});
