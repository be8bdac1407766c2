import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { efivarfsMounted, ensureBootOrder, type BootOrderInput } from "../../../src/install/efi/ensure-boot-order.ts";
import { filePathNode } from "../../../src/install/efi/device-path.ts";
import { decodeLoadOption, EFI_GLOBAL_VARIABLE, encodeLoadOption } from "../../../src/install/efi/load-option.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { FS_IMMUTABLE_FL, type InodeFlags } from "../../../src/platform/sys/inode-flags.ts";
import type { MountSys } from "../../../src/platform/sys/mount.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";
import { EFIBOOT_DEBIAN_VDA, EFIBOOT_DEBIAN_VDB } from "./efiboot-vectors.ts";
import { fakeMachine, VDA, VDB, type FakeMachine, type FakeMachineOptions } from "./fake-machine.ts";
import { GPT_VDA, withEspEntry } from "./gpt-vectors.ts";
import { MISC_HEX, PXE_HEX, SHELL_HEX, TESTOS_HEX, UIAPP_HEX, hex } from "./vectors.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const BOOT_ORDER = `BootOrder-${EFI_GLOBAL_VARIABLE}`;
const REMOVABLE = "EFI/BOOT/BOOTX64.EFI";

/** A machine after the installer: the ESP (fake-machine.ts) and an efivarfs-shaped tree <efi>/efivars/<Name>-<guid> = attributes (u32 LE) + data. */
function installed(vars: Record<string, string>, o: FakeMachineOptions = { esp: { partition: "vda1" }, loaders: [REMOVABLE] }) {
  const m: FakeMachine = fakeMachine(o);
  dirs.push(m.base);
  const efi = join(m.base, "firmware/efi");
  const v = join(efi, "efivars");
  mkdirSync(v, { recursive: true });
  for (const [name, data] of Object.entries(vars))
    writeFileSync(join(v, `${name}-${EFI_GLOBAL_VARIABLE}`), Buffer.concat([Buffer.from("07000000", "hex"), Buffer.from(data, "hex")]));
  // Another vendor's variable and a non-boot global one: ignored.
  writeFileSync(join(v, "Boot0009-00000000-0000-0000-0000-000000000000"), Buffer.from("0700000000", "hex"));
  writeFileSync(join(v, `Timeout-${EFI_GLOBAL_VARIABLE}`), Buffer.from("070000000000", "hex"));
  return { m, efi, vars: v };
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

/** ensureBootOrder on the fake machine, efivarfs already mounted. */
function input(t: ReturnType<typeof installed>, bootloaderId: string, more: Partial<BootOrderInput> = {}): BootOrderInput {
  return {
    log: capturingLogger().log,
    bootloaderId,
    root: t.m.root,
    sysRoot: t.m.sys,
    devRoot: t.m.dev,
    efiDir: t.efi,
    flags: flagRecorder().flags,
    mounts: noMounts,
    readMountInfo: async () => `${t.m.mountinfo}60 1 0:30 / ${t.vars} rw,nosuid - efivarfs efivarfs rw\n`,
    removableLoader: "\\EFI\\BOOT\\BOOTX64.EFI",
    ...more,
  };
}

const varHex = (t: ReturnType<typeof installed>, name: string) => readFileSync(join(t.vars, `${name}-${EFI_GLOBAL_VARIABLE}`)).toString("hex");
const globalVars = (t: ReturnType<typeof installed>) =>
  readdirSync(t.vars)
    .filter((f) => f.endsWith(EFI_GLOBAL_VARIABLE))
    .sort();
/** Every variable file with its bytes. */
const snapshot = (t: ReturnType<typeof installed>) =>
  readdirSync(t.vars)
    .sort()
    .map((f) => [f, readFileSync(join(t.vars, f)).toString("hex")]);
const refusal = async (p: Promise<unknown>): Promise<AgentError> => {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(AgentError);
  expect((e as AgentError).exitCode).toBe(57);
  return e as AgentError;
};

describe("ensureBootOrder (efivarfs shell)", () => {
  test("the installer's entry is good (the test OS's efibootmgr entry, its loader on the ESP): BootOrder NV|BS|RT with it first, immutable cleared for the write and set again, one log line", async () => {
    // The test OS's ESP: the partition its entry names (bccfc23a-..., LBA 0x800..0x87fff).
    const disk = { ...VDA, gpt: withEspEntry(GPT_VDA, "3ac2cfbc99d6914dbed20381f5f5b33d", 0x800n + 0x80000n - 1n) };
    const t = installed(
      { BootOrder: "000001000200", Boot0000: MISC_HEX, Boot0001: PXE_HEX, Boot0002: TESTOS_HEX },
      { disks: [disk], esp: { partition: "vda1" }, loaders: ["EFI/testos/grubx64.efi"] },
    );
    const { flags, calls } = flagRecorder();
    const cap = capturingLogger();
    const out = await ensureBootOrder(input(t, "testos", { log: cap.log, flags }));
    expect(out.kind).toBe("set");
    expect(varHex(t, "BootOrder")).toBe("07000000" + "020001000000");
    expect(calls).toEqual([`get ${BOOT_ORDER}`, `set ${BOOT_ORDER} 0`, `set ${BOOT_ORDER} ${FS_IMMUTABLE_FL}`]);
    expect(cap.events("install.boot_entry")).toEqual([]);
    const [line] = cap.events("install.boot_order");
    expect(line?.msg).toBe(
      'UEFI boot order set: Boot0002 "testos", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0000 "UEFI Misc Device" (was: Boot0000 "UEFI Misc Device", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0002 "testos")',
    );
    expect([line?.old, line?.order, line?.written]).toEqual([[0, 1, 2], [2, 1, 0], []]);
  });

  test("os-installer without RAID (grub-install --removable, no NVRAM entry): Boot0003 written with efibootmgr's bytes for vda1 + \\EFI\\BOOT\\BOOTX64.EFI, first, said in the log", async () => {
    const t = installed({ BootOrder: "000001000200", Boot0000: UIAPP_HEX, Boot0001: PXE_HEX, Boot0002: SHELL_HEX });
    const cap = capturingLogger();
    await ensureBootOrder(input(t, "metal-debian", { log: cap.log }));
    expect(varHex(t, "Boot0003")).toBe("07000000" + EFIBOOT_DEBIAN_VDA.hex);
    expect(varHex(t, "BootOrder")).toBe("07000000" + "0300010000000200");
    expect(cap.events("install.boot_entry").map((l) => l.msg)).toEqual([
      `UEFI boot entry Boot0003 "metal-debian" written for the ESP partition vda1: ${EFIBOOT_DEBIAN_VDA.text} (no entry is named "metal-debian")`,
    ]);
    expect(cap.events("install.boot_order").map((l) => l.msg)).toEqual([
      'UEFI boot order set: Boot0003 "metal-debian", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0000 "UiApp", Boot0002 "EFI Internal Shell" (was: Boot0000 "UiApp", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0002 "EFI Internal Shell")',
    ]);
  });

  test("os-installer on RAID (ESP md RAID 1 over vda1 and vdb1, entries for a missing \\EFI\\metal-debian\\grubx64.efi): one entry per member, first; the installer's dead entries deleted", async () => {
    // What os-installer's `efibootmgr -c -d <disk> -p1 -l \\EFI\\metal-debian\\grubx64.efi -L metal-debian` stands for: HD() of the member, a loader grub-install --removable did not write.
    const grubNamed = (v: typeof EFIBOOT_DEBIAN_VDA) => {
      const o = decodeLoadOption(hex(v.hex));
      return Buffer.from(encodeLoadOption({ ...o, filePath: [o.filePath[0]!, filePathNode("\\EFI\\metal-debian\\grubx64.efi")] })).toString("hex");
    };
    const t = installed(
      { BootOrder: "0200030000000100", Boot0000: UIAPP_HEX, Boot0001: PXE_HEX, Boot0002: grubNamed(EFIBOOT_DEBIAN_VDA), Boot0003: grubNamed(EFIBOOT_DEBIAN_VDB) },
      { disks: [VDA, VDB], esp: { md: "md127", members: ["vda1", "vdb1"] }, loaders: [REMOVABLE] },
    );
    const cap = capturingLogger();
    const out = await ensureBootOrder(input(t, "metal-debian", { log: cap.log }));
    expect(out.kind === "set" && out.esp.device).toBe("md127");
    expect(varHex(t, "Boot0004")).toBe("07000000" + EFIBOOT_DEBIAN_VDA.hex);
    expect(varHex(t, "Boot0005")).toBe("07000000" + EFIBOOT_DEBIAN_VDB.hex);
    expect(varHex(t, "BootOrder")).toBe("07000000" + "040005000100" + "0000");
    // The entries naming the missing grubx64.efi are gone from NVRAM, not only from BootOrder.
    expect(existsSync(join(t.vars, `Boot0002-${EFI_GLOBAL_VARIABLE}`))).toBe(false);
    expect(existsSync(join(t.vars, `Boot0003-${EFI_GLOBAL_VARIABLE}`))).toBe(false);
    expect(cap.events("install.boot_entry").map((e) => [e.entry, e.deleted === true])).toEqual([
      ["Boot0004", false],
      ["Boot0005", false],
      ["Boot0002", true],
      ["Boot0003", true],
    ]);
    expect(String(cap.events("install.boot_entry")[2]?.msg)).toBe(
      'UEFI boot entry Boot0002 "metal-debian" deleted: it does not boot the installed OS (\\EFI\\metal-debian\\grubx64.efi is not on the ESP); grub-install deletes the entries of its label the same way',
    );
    const [first] = cap.events("install.boot_entry");
    expect(String(first?.msg)).toBe(
      `UEFI boot entry Boot0004 "metal-debian" written for the ESP partition vda1: ${EFIBOOT_DEBIAN_VDA.text} (none named "metal-debian" boots from it: Boot0002 "metal-debian": \\EFI\\metal-debian\\grubx64.efi is not on the ESP; Boot0003 "metal-debian": \\EFI\\metal-debian\\grubx64.efi is not on the ESP)`,
    );
  });

  test("a reinstall onto the same partitions adds no entry: the second run finds the first run's entry and writes nothing", async () => {
    const t = installed({ BootOrder: "00000100", Boot0000: UIAPP_HEX, Boot0001: PXE_HEX });
    await ensureBootOrder(input(t, "metal-debian"));
    const before = snapshot(t);
    expect(before.length).toBe(6);
    const { flags, calls } = flagRecorder();
    const cap = capturingLogger();
    const again = await ensureBootOrder(input(t, "metal-debian", { flags, log: cap.log }));
    expect(again.kind === "set" && [again.plan.writes.length, again.plan.changed]).toEqual([0, false]);
    expect(calls).toEqual([]);
    expect(snapshot(t)).toEqual(before);
    expect(cap.events("install.boot_order").map((l) => l.msg)).toEqual([
      'UEFI boot order already right: Boot0002 "metal-debian", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0000 "UiApp" (was: Boot0002 "metal-debian", Boot0001 "UEFI PXEv4 (MAC:525400123456)", Boot0000 "UiApp")',
    ]);
  });

  test("no loader file on the ESP: exit 57 naming the paths looked for; no variable written", async () => {
    const t = installed({ BootOrder: "00000100", Boot0000: MISC_HEX, Boot0001: PXE_HEX }, { esp: { partition: "vda1" }, loaders: [] });
    const { flags, calls } = flagRecorder();
    const err = await refusal(ensureBootOrder(input(t, "debian", { flags })));
    expect(err.message).toBe(
      `UEFI boot order: no loader file on the ESP: looked for \\EFI\\BOOT\\BOOTX64.EFI (what the installer's entries name, and the removable path grub-install --removable writes) (the ESP: ${t.m.esp} on vda1)`,
    );
    expect(calls).toEqual([]);
    expect(varHex(t, "BootOrder")).toBe("0700000000000100");
    expect(globalVars(t)).toEqual([`Boot0000-${EFI_GLOBAL_VARIABLE}`, `Boot0001-${EFI_GLOBAL_VARIABLE}`, BOOT_ORDER, `Timeout-${EFI_GLOBAL_VARIABLE}`]);
  });

  test("no ESP mounted: exit 57 before efivarfs is touched", async () => {
    const t = installed({ BootOrder: "0000", Boot0000: MISC_HEX }, { esp: undefined });
    expect((await refusal(ensureBootOrder(input(t, "debian")))).message).toContain(`no ESP: nothing is mounted at ${t.m.esp}`);
  });

  test("efivarfs not mounted yet: mounted for the step and unmounted after", async () => {
    const t = installed({ BootOrder: "0000", Boot0000: PXE_HEX });
    const mounts: string[] = [];
    const sys: MountSys = { mount: (s, tg, f) => (mounts.push(`mount ${s} ${tg} ${f}`), 0), umount: (tg) => (mounts.push(`umount ${tg}`), 0) };
    await ensureBootOrder(input(t, "metal-debian", { mounts: sys, readMountInfo: async () => t.m.mountinfo }));
    expect(mounts).toEqual([`mount efivarfs ${t.vars} efivarfs`, `umount ${t.vars}`]);
  });

  test("not UEFI: skipped with one log line", async () => {
    const cap = capturingLogger();
    const out = await ensureBootOrder({ log: cap.log, bootloaderId: "testos", root: "/nonexistent", efiDir: join(tmpdir(), "mh-no-such-efi"), mounts: noMounts });
    expect(out).toEqual({ kind: "skipped" });
    expect(cap.events("install.boot_order").map((l) => l.skipped)).toEqual(["not UEFI"]);
    expect(existsSync(join(tmpdir(), "mh-no-such-efi"))).toBe(false);
  });

  test("efivarfsMounted reads /proc/self/mountinfo", () => {
    expect(efivarfsMounted("60 1 0:30 / /sys/firmware/efi/efivars rw - efivarfs efivarfs rw\n", "/sys/firmware/efi/efivars")).toBe(true);
    expect(efivarfsMounted("60 1 0:30 / /sys/firmware/efi/efivars rw - sysfs sysfs rw\n", "/sys/firmware/efi/efivars")).toBe(false);
  });
});
