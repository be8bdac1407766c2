import { describe, expect, test } from "bun:test";
import { appletLinks, composeImage, SKELETON, type ImageItem } from "../../initramfs/lib/layout.ts";

const file = (path: string, group = "g"): ImageItem => ({ kind: "file", path, mode: 0o644, size: 1, source: { kind: "bytes", data: new Uint8Array(1) }, group });

describe("image layout", () => {
  test("entries are sorted bytewise, parents come first and are created when missing", () => {
    const img = composeImage([file("lib/x86_64-linux-gnu/libc.so.6"), file("init"), file("etc/ssl/certs/ca.crt")]);
    expect(img.entries.map((e) => e.path)).toEqual([
      "etc",
      "etc/ssl",
      "etc/ssl/certs",
      "etc/ssl/certs/ca.crt",
      "init",
      "lib",
      "lib/x86_64-linux-gnu",
      "lib/x86_64-linux-gnu/libc.so.6",
    ]);
  });

  test("the skeleton has the mount points and the console node the kernel opens for init", () => {
    const img = composeImage(SKELETON);
    const paths = img.entries.map((e) => e.path);
    for (const p of ["dev", "proc", "sys", "run", "tmp"]) expect(paths).toContain(p);
    expect(img.entries.find((e) => e.path === "dev/console")).toEqual({ kind: "char", path: "dev/console", mode: 0o600, major: 5, minor: 1 });
    expect(img.entries.find((e) => e.path === "tmp")).toMatchObject({ mode: 0o1777 });
  });

  test("the same path added twice is an error naming both groups", () => {
    expect(() => composeImage([file("/init", "agent"), file("init", "busybox")])).toThrow("image: init is added twice (agent and busybox)");
  });

  test("a file where a directory is needed is an error", () => {
    expect(() => composeImage([file("lib"), file("lib/x")])).toThrow(/lib is a file but lib\/x needs it as a directory/);
  });

  test("busybox applet links skip paths already taken and busybox itself", () => {
    const links = appletLinks("bin/sh\nbin/busybox\nsbin/insmod\ninit\n", "/bin/busybox", new Set(["init"]));
    expect(links).toEqual([
      { kind: "symlink", path: "bin/sh", target: "/bin/busybox", group: "busybox" },
      { kind: "symlink", path: "sbin/insmod", target: "/bin/busybox", group: "busybox" },
    ]);
  });
});
