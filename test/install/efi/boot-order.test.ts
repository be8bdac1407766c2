/**
 * The boot order plan (installed OS first, then network, then the rest in their old
 * order) and its shell against an efivarfs-shaped directory (4 attribute bytes + data per
 * file), with the immutable flag handled through an injected inode-flags service.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BootOrderError, planBootOrder } from "../../../src/install/efi/boot-order-plan.ts";
import { efivarfsMounted, ensureBootOrder } from "../../../src/install/efi/ensure-boot-order.ts";
import { decodeLoadOption, EFI_GLOBAL_VARIABLE } from "../../../src/install/efi/load-option.ts";
import { AgentError } from "../../../src/errors.ts";
import { FS_IMMUTABLE_FL, type InodeFlags } from "../../../src/platform/sys/inode-flags.ts";
import type { MountSys } from "../../../src/platform/sys/mount.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";
import { HTTP_HEX, MISC_HEX, PXE_HEX, SHELL_HEX, TESTOS_HEX, hex } from "./vectors.ts";

const PXE = decodeLoadOption(hex(PXE_HEX));
const MISC = decodeLoadOption(hex(MISC_HEX));
const TESTOS = decodeLoadOption(hex(TESTOS_HEX));
const SHELL = decodeLoadOption(hex(SHELL_HEX));

describe("planBootOrder", () => {
  test("the OS entry first, then network, then the rest in their old order", () => {
    const entries = new Map([
      [0, MISC],
      [1, PXE],
      [2, SHELL],
      [3, TESTOS],
      [4, decodeLoadOption(hex(HTTP_HEX))],
    ]);
    const p = planBootOrder([0, 1, 2, 4, 3], entries, "testos");
    expect(p.order).toEqual([3, 1, 4, 0, 2]);
    expect(p.os).toEqual([3]);
    expect(p.network).toEqual([1, 4]);
    expect(p.changed).toBe(true);
  });

  test("already right: unchanged; an OS entry missing from BootOrder still goes first; duplicates dropped", () => {
    const entries = new Map([
      [1, PXE],
      [3, TESTOS],
    ]);
    expect(planBootOrder([3, 1], entries, "testos").changed).toBe(false);
    expect(planBootOrder([1, 1], entries, "testos").order).toEqual([3, 1]);
  });

  test("no entry with the bootloader id: a typed error naming it and the entries found", () => {
    const entries = new Map([
      [0, MISC],
      [1, PXE],
    ]);
    expect(() => planBootOrder([0, 1], entries, "debian")).toThrow(
      new BootOrderError(
        'no boot entry is named "debian" (the installer\'s bootloader_id; grub-install --bootloader-id names its entry so): entries found: Boot0000 "UEFI Misc Device", Boot0001 "UEFI PXEv4 (MAC:525400123456)"',
      ),
    );
    expect(() => planBootOrder([0], new Map([[0, MISC]]), "")).toThrow("boot-info.yaml names no bootloader_id");
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An efivarfs-shaped tree: <efi>/efivars/<Name>-<guid> = attributes (u32 LE) + data. */
function efiTree(vars: Record<string, string>): { efi: string; vars: string } {
  const efi = mkdtempSync(join(tmpdir(), "mh-efi-"));
  dirs.push(efi);
  const v = join(efi, "efivars");
  mkdirSync(v);
  for (const [name, data] of Object.entries(vars))
    writeFileSync(join(v, `${name}-${EFI_GLOBAL_VARIABLE}`), Buffer.concat([Buffer.from("07000000", "hex"), Buffer.from(data, "hex")]));
  // Another vendor's variable and a non-boot global one: ignored.
  writeFileSync(join(v, "Boot0009-00000000-0000-0000-0000-000000000000"), Buffer.from("0700000000", "hex"));
  writeFileSync(join(v, `Timeout-${EFI_GLOBAL_VARIABLE}`), Buffer.from("070000000000", "hex"));
  return { efi, vars: v };
}

function flagRecorder() {
  const calls: string[] = [];
  const state = new Map<string, number>();
  const flags: InodeFlags = {
    get: (p) => (calls.push(`get ${p.split("/").pop()}`), state.get(p) ?? FS_IMMUTABLE_FL),
    set: (p, f) => (calls.push(`set ${p.split("/").pop()} ${f}`), state.set(p, f), 0),
  };
  return { flags, calls };
}

const noMounts: MountSys = {
  mount: () => {
    throw new Error("no mount expected");
  },
  umount: () => {
    throw new Error("no umount expected");
  },
};

describe("ensureBootOrder (efivarfs shell)", () => {
  const BOOT_ORDER = `BootOrder-${EFI_GLOBAL_VARIABLE}`;

  test("writes BootOrder NV|BS|RT with the OS first, immutable cleared for the write and set again, one log line with old and new", async () => {
    const t = efiTree({ BootOrder: "000001000200", Boot0000: MISC_HEX, Boot0001: PXE_HEX, Boot0002: TESTOS_HEX });
    const { flags, calls } = flagRecorder();
    const cap = capturingLogger();
    const out = await ensureBootOrder({
      log: cap.log,
      bootloaderId: "testos",
      efiDir: t.efi,
      flags,
      mounts: noMounts,
      readMounts: async () => `efivarfs ${t.vars} efivarfs rw,nosuid 0 0\n`,
    });
    expect(out.kind).toBe("set");
    expect(readFileSync(join(t.vars, BOOT_ORDER)).toString("hex")).toBe("07000000" + "020001000000");
    expect(calls).toEqual([`get ${BOOT_ORDER}`, `set ${BOOT_ORDER} 0`, `set ${BOOT_ORDER} ${FS_IMMUTABLE_FL}`]);
    const [line] = cap.events("install.boot_order");
    expect(line?.msg).toBe(
      'UEFI boot order set: Boot0002 "testos", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0000 "UEFI Misc Device" (was: Boot0000 "UEFI Misc Device", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0002 "testos")',
    );
    expect(line?.old).toEqual([0, 1, 2]);
    expect(line?.order).toEqual([2, 1, 0]);
  });

  test("no entry for the bootloader id: exit 57 naming the id and the entries, BootOrder untouched", async () => {
    const t = efiTree({ BootOrder: "00000100", Boot0000: MISC_HEX, Boot0001: PXE_HEX });
    const { flags, calls } = flagRecorder();
    const err = await ensureBootOrder({
      log: capturingLogger().log,
      bootloaderId: "debian",
      efiDir: t.efi,
      flags,
      mounts: noMounts,
      readMounts: async () => `efivarfs ${t.vars} efivarfs rw 0 0\n`,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).exitCode).toBe(57);
    expect((err as Error).message).toContain('UEFI boot order: no boot entry is named "debian"');
    expect((err as Error).message).toContain('Boot0001 "UEFI PXEv4 (MAC:525400123456)"');
    expect(calls).toEqual([]);
    expect(readFileSync(join(t.vars, BOOT_ORDER)).toString("hex")).toBe("0700000000000100");
  });

  test("efivarfs not mounted yet: mounted for the step and unmounted after", async () => {
    const t = efiTree({ BootOrder: "0200", Boot0002: TESTOS_HEX });
    const mounts: string[] = [];
    const sys: MountSys = { mount: (s, tg, f) => (mounts.push(`mount ${s} ${tg} ${f}`), 0), umount: (tg) => (mounts.push(`umount ${tg}`), 0) };
    const out = await ensureBootOrder({
      log: capturingLogger().log,
      bootloaderId: "testos",
      efiDir: t.efi,
      flags: flagRecorder().flags,
      mounts: sys,
      readMounts: async () => "sysfs /sys sysfs rw 0 0\n",
    });
    expect(out.kind === "set" && out.plan.changed).toBe(false);
    expect(mounts).toEqual([`mount efivarfs ${t.vars} efivarfs`, `umount ${t.vars}`]);
  });

  test("not UEFI: skipped with one log line", async () => {
    const cap = capturingLogger();
    const out = await ensureBootOrder({ log: cap.log, bootloaderId: "testos", efiDir: join(tmpdir(), "mh-no-such-efi"), mounts: noMounts });
    expect(out).toEqual({ kind: "skipped" });
    expect(cap.events("install.boot_order").map((l) => l.skipped)).toEqual(["not UEFI"]);
    expect(existsSync(join(tmpdir(), "mh-no-such-efi"))).toBe(false);
  });

  test("efivarfsMounted reads /proc/self/mounts", () => {
    expect(efivarfsMounted("efivarfs /sys/firmware/efi/efivars efivarfs rw 0 0\n", "/sys/firmware/efi/efivars")).toBe(true);
    expect(efivarfsMounted("sysfs /sys/firmware/efi/efivars sysfs rw 0 0\n", "/sys/firmware/efi/efivars")).toBe(false);
  });
});
