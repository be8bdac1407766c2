/**
 * The thin shell around boot-order-plan.ts (metal-hammer cmd/install.go calls
 * EnsureBootOrder(bootloaderID) right after reading boot-info.yaml, before the kexec and
 * before reporting the install): on a UEFI machine it reads BootOrder and every
 * Boot#### from efivarfs, plans the order and writes BootOrder back (NV|BS|RT, after
 * clearing the file's immutable flag, which is set again after), then reads it back.
 * Not UEFI (no /sys/firmware/efi): skipped with one log line. efivarfs is mounted at
 * <efi>/efivars for the step when it is not mounted there yet, and unmounted after.
 */
import { closeSync, existsSync, openSync, readdirSync, writeSync, constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentError } from "../../errors.ts";
import { parseMounts } from "../../platform/fs/mount-table.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { FS_IMMUTABLE_FL, linuxInodeFlags, type InodeFlags } from "../../platform/sys/inode-flags.ts";
import { MNT_DETACH, linuxMount, type MountSys } from "../../platform/sys/mount.ts";
import { BootOrderError, describeEntry, planBootOrder, type BootOrderPlan } from "./boot-order-plan.ts";
import { BOOT_ORDER_ATTRIBUTES, EFI_GLOBAL_VARIABLE, LoadOptionError, bootNumber, decodeBootOrder, decodeLoadOption, encodeBootOrder, type LoadOption } from "./load-option.ts";

export interface BootOrderInput {
  readonly log: Logger;
  /** From the installer's /etc/metal/boot-info.yaml. */
  readonly bootloaderId: string;
  /** Default /sys/firmware/efi (tests: a directory with an `efivars` tree). */
  readonly efiDir?: string;
  readonly mounts?: MountSys;
  readonly flags?: InodeFlags;
  readonly readMounts?: () => Promise<string>;
}

export type BootOrderOutcome = { readonly kind: "skipped" } | { readonly kind: "set"; readonly plan: BootOrderPlan };

export interface EfiVars {
  readonly order: number[];
  readonly entries: Map<number, LoadOption>;
}

const varPath = (dir: string, name: string) => join(dir, `${name}-${EFI_GLOBAL_VARIABLE}`);

const fail = (message: string, fields: Record<string, unknown> = {}) => new AgentError("boot_order", `UEFI boot order: ${message}`, fields);

/** An efivarfs file's data (its first 4 bytes are the attributes). */
async function readVar(dir: string, name: string): Promise<Uint8Array | undefined> {
  let b: Buffer;
  try {
    b = await readFile(varPath(dir, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fail(`cannot read ${varPath(dir, name)}: ${(e as Error).message}`);
  }
  if (b.length < 4) throw fail(`${varPath(dir, name)} has ${b.length} bytes, expected 4 attribute bytes and the data`);
  return new Uint8Array(b.buffer, b.byteOffset + 4, b.length - 4);
}

/** Where the kernel shows UEFI (absent on a machine that did not boot by UEFI). */
export const EFI_DIR = "/sys/firmware/efi";

const loadOptionFail = (e: unknown, where?: string): unknown => (e instanceof LoadOptionError ? fail(where ? `${where}: ${e.message}` : e.message) : e);

/** BootOrder of an efivarfs directory (empty when the variable does not exist). */
export async function readBootOrder(dir: string): Promise<number[]> {
  const order = await readVar(dir, "BootOrder");
  try {
    return order ? decodeBootOrder(order) : [];
  } catch (e) {
    throw loadOptionFail(e);
  }
}

/** BootOrder and every Boot#### of EFI_GLOBAL_VARIABLE in an efivarfs directory. */
export async function readBootVars(dir: string): Promise<EfiVars> {
  const order = await readBootOrder(dir);
  const entries = new Map<number, LoadOption>();
  const suffix = `-${EFI_GLOBAL_VARIABLE}`;
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith(suffix)) continue;
    const n = bootNumber(f.slice(0, -suffix.length));
    if (n === undefined) continue;
    const data = await readVar(dir, f.slice(0, -suffix.length));
    if (!data) continue;
    try {
      entries.set(n, decodeLoadOption(data));
    } catch (e) {
      throw loadOptionFail(e, f);
    }
  }
  return { order, entries };
}

/** Writes BootOrder (attributes NV|BS|RT + the UINT16 list in one write(2), as efivarfs wants it). */
export function writeBootOrder(dir: string, order: readonly number[], flags: InodeFlags): void {
  const path = varPath(dir, "BootOrder");
  const exists = existsSync(path);
  let old = 0;
  if (exists) {
    old = flags.get(path);
    if (old < 0) throw fail(`cannot read the inode flags of ${path} (errno ${-old})`);
    if (old & FS_IMMUTABLE_FL) {
      const e = flags.set(path, old & ~FS_IMMUTABLE_FL);
      if (e < 0) throw fail(`cannot clear the immutable flag of ${path} (errno ${-e})`);
    }
  }
  const data = encodeBootOrder(order);
  const buf = new Uint8Array(4 + data.length);
  new DataView(buf.buffer).setUint32(0, BOOT_ORDER_ATTRIBUTES, true);
  buf.set(data, 4);
  try {
    const fd = openSync(path, constants.O_WRONLY | (exists ? 0 : constants.O_CREAT), 0o644);
    try {
      const n = writeSync(fd, buf);
      if (n !== buf.length) throw new Error(`wrote ${n} of ${buf.length} bytes`);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw fail(`cannot write ${path}: ${(e as Error).message}`);
  } finally {
    if (old & FS_IMMUTABLE_FL) flags.set(path, old);
  }
}

/** Whether efivarfs is mounted at `target` (/proc/self/mounts text). */
export function efivarfsMounted(mountsText: string, target: string): boolean {
  return parseMounts(mountsText).some((m) => m.target === target && m.fstype === "efivarfs");
}

export async function ensureBootOrder(i: BootOrderInput): Promise<BootOrderOutcome> {
  const efiDir = i.efiDir ?? EFI_DIR;
  if (!existsSync(efiDir)) {
    logEvent(i.log, "install.boot_order", { skipped: "not UEFI" }, `UEFI boot order: skipped, ${efiDir} does not exist (the machine did not boot by UEFI)`);
    return { kind: "skipped" };
  }
  const dir = join(efiDir, "efivars");
  const sys = i.mounts ?? linuxMount;
  const mounted = efivarfsMounted(await (i.readMounts ?? (() => readFile("/proc/self/mounts", "utf8")))(), dir);
  if (!mounted) {
    const e = sys.mount("efivarfs", dir, "efivarfs", 0);
    if (e !== 0) throw fail(`cannot mount efivarfs at ${dir} (errno ${e})`, { errno: e });
  }
  try {
    const vars = await readBootVars(dir);
    let plan: BootOrderPlan;
    try {
      plan = planBootOrder(vars.order, vars.entries, i.bootloaderId);
    } catch (e) {
      if (e instanceof BootOrderError) throw fail(e.message, { bootloaderId: i.bootloaderId });
      throw e;
    }
    if (plan.changed) writeBootOrder(dir, plan.order, i.flags ?? linuxInodeFlags);
    const back = await readBootOrder(dir);
    if (back.join() !== plan.order.join()) throw fail(`BootOrder reads back as ${back.join(",")} after writing ${plan.order.join(",")}`);
    const show = (o: readonly number[]) => o.map((n) => describeEntry(n, vars.entries)).join(", ");
    logEvent(
      i.log,
      "install.boot_order",
      { bootloaderId: i.bootloaderId, old: plan.old, order: plan.order, changed: plan.changed },
      `UEFI boot order ${plan.changed ? "set" : "already right"}: ${show(plan.order)} (was: ${show(plan.old) || "empty"})`,
    );
    return { kind: "set", plan };
  } finally {
    if (!mounted) sys.umount(dir, MNT_DETACH);
  }
}
