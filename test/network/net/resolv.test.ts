import { afterAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InterfaceMachine } from "../../../src/network/net/machine.ts";
import { collectDns, renderResolvConf } from "../../../src/network/net/resolv.ts";
import { writeResolvConf } from "../../../src/network/net/resolv-file.ts";
import { dnssl, rdnss } from "./feed.ts";

const dir = mkdtempSync(join(tmpdir(), "mhn-resolv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("resolv.conf from RA DNS", () => {
  test("servers and search domains of all interfaces, de-duplicated, link-local servers with their zone", () => {
    const a = new InterfaceMachine(2, "eth0", "", 0);
    const b = new InterfaceMachine(3, "eth1", "", 0);
    a.apply(rdnss(["2001:db8::53", "fe80::53"], 30), 0);
    a.apply(dnssl(["lab.example"], 30), 0);
    b.apply(rdnss(["2001:db8::53", "2001:db8::54"], 30, { ifindex: 3 }), 0);
    expect(collectDns([a, b])).toEqual({ servers: ["2001:db8::53", "fe80::53%eth0", "2001:db8::54"], search: ["lab.example"] });
    expect(renderResolvConf(collectDns([a, b]))).toBe(
      "# written by metal-hammer from router advertisements (RDNSS/DNSSL)\nnameserver 2001:db8::53\nnameserver fe80::53%eth0\nnameserver 2001:db8::54\nsearch lab.example\n",
    );
  });

  test("written atomically and only when it changes", () => {
    const p = join(dir, "resolv.conf");
    expect(writeResolvConf(p, "nameserver 2001:db8::53\n")).toEqual({ ok: true, how: "replaced" });
    const ino = statSync(p).ino;
    expect(writeResolvConf(p, "nameserver 2001:db8::53\n")).toEqual({ ok: true, how: "unchanged" });
    expect(statSync(p).ino).toBe(ino);
    expect(writeResolvConf(p, "nameserver 2001:db8::54\n")).toEqual({ ok: true, how: "replaced" });
    expect(statSync(p).ino).not.toBe(ino); // a new file renamed over the old one
    expect(readFileSync(p, "utf8")).toBe("nameserver 2001:db8::54\n");
    expect(readdirSync(dir)).toEqual(["resolv.conf"]); // no temp file left
  });

  test("an unwritable path is a failed outcome naming it (never thrown)", () => {
    const r = writeResolvConf(join(dir, "missing/dir/resolv.conf"), "x\n");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/cannot write .*missing\/dir\/resolv.conf: ENOENT/);
  });

  test("a symlink (systemd-resolved) is left alone and the outcome names its target", () => {
    const target = join(dir, "stub-resolv.conf");
    writeFileSync(target, "nameserver 127.0.0.53\n");
    const p = join(dir, "linked-resolv.conf");
    symlinkSync(target, p);
    const r = writeResolvConf(p, "nameserver 2001:db8::53\n");
    expect(r).toEqual({ ok: false, reason: `${p} is a symlink to ${target} (another resolver manages it): left alone; --resolv-conf ${target} writes there` });
    expect(lstatSync(p).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("nameserver 127.0.0.53\n");
  });
});
