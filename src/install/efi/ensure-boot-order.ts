/**
 * The thin shell around boot-order-plan.ts (metal-hammer cmd/install.go calls
 * EnsureBootOrder(bootloaderID) right after reading boot-info.yaml, before the kexec and
 * before reporting the install): on a UEFI machine it finds the ESP mounted at
 * <root>/boot/efi and its partitions (esp.ts), reads BootOrder and every Boot#### from
 * efivarfs, looks up on the ESP the loaders the entries name (esp-loader.ts), plans,
 * writes the Boot#### the plan adds, then BootOrder (each NV|BS|RT, after clearing the
 * file's immutable flag, which is set again after), and reads each back.
 * Not UEFI (no /sys/firmware/efi): skipped with one log line. efivarfs is mounted at
 * <efi>/efivars for the step when it is not mounted there yet, and unmounted after.
 */
import { closeSync, existsSync, openSync, readdirSync, unlinkSync, writeSync, constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentError } from "../../platform/errors.ts";
import { parseMountInfo } from "../../platform/fs/mountinfo.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { FS_IMMUTABLE_FL, linuxInodeFlags, type InodeFlags } from "../../platform/sys/inode-flags.ts";
import { MNT_DETACH, linuxMount, type MountSys } from "../../platform/sys/mount.ts";
import { BootOrderError, describeEntry, loaderCandidates, planBootOrder, REMOVABLE_LOADERS, type BootOrderPlan } from "./boot-order-plan.ts";
import { formatDevicePath } from "./device-path.ts";
import { findLoader, loaderKey } from "./esp-loader.ts";
import { findEsp, type Esp } from "./esp.ts";
import {
  BOOT_VARIABLE_ATTRIBUTES,
  EFI_GLOBAL_VARIABLE,
  LoadOptionError,
  bootName,
  bootNumber,
  decodeBootOrder,
  decodeLoadOption,
  encodeBootOrder,
  type LoadOption,
} from "./load-option.ts";

export interface BootOrderInput {
  readonly log: Logger;
  /** From the installer's /etc/metal/boot-info.yaml. */
  readonly bootloaderId: string;
  /** The mounted target root (the disks stage's): the ESP is the FAT filesystem mounted at <root>/boot/efi. */
  readonly root: string;
  /** Where the ESP's block devices are looked up (default /sys; the flow: --sysfs). */
  readonly sysRoot?: string;
  /** Where the disks' device nodes are (default /dev), for their GPT. */
  readonly devRoot?: string;
  /** Default /sys/firmware/efi (tests: a directory with an `efivars` tree). */
  readonly efiDir?: string;
  readonly mounts?: MountSys;
  readonly flags?: InodeFlags;
  /** /proc/self/mountinfo's text: the efivarfs and ESP mounts (default: read it). */
  readonly readMountInfo?: () => Promise<string>;
  /** The loader `grub-install --removable` writes (default: this machine's, REMOVABLE_LOADERS). */
  readonly removableLoader?: string;
}

export type BootOrderOutcome = { readonly kind: "skipped" } | { readonly kind: "set"; readonly plan: BootOrderPlan; readonly esp: Esp };

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

/** Writes a variable (attributes NV|BS|RT + the data in one write(2), as efivarfs wants it; a new one is created). */
export function writeVariable(dir: string, name: string, data: Uint8Array, flags: InodeFlags): void {
  const path = varPath(dir, name);
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
  const buf = new Uint8Array(4 + data.length);
  new DataView(buf.buffer).setUint32(0, BOOT_VARIABLE_ATTRIBUTES, true);
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

/** Deletes a variable: efivarfs marks its files immutable, so the flag is cleared first; one already gone is fine. */
export function deleteVariable(dir: string, name: string, flags: InodeFlags): void {
  const path = varPath(dir, name);
  if (!existsSync(path)) return;
  const old = flags.get(path);
  if (old < 0) throw fail(`cannot read the inode flags of ${path} (errno ${-old})`);
  if (old & FS_IMMUTABLE_FL) {
    const e = flags.set(path, old & ~FS_IMMUTABLE_FL);
    if (e < 0) throw fail(`cannot clear the immutable flag of ${path} (errno ${-e})`);
  }
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw fail(`cannot delete ${path}: ${(e as Error).message}`);
  }
}

/** Writes BootOrder (NV|BS|RT + the UINT16 list). */
export function writeBootOrder(dir: string, order: readonly number[], flags: InodeFlags): void {
  writeVariable(dir, "BootOrder", encodeBootOrder(order), flags);
}

/** Whether efivarfs is mounted at `target` (/proc/self/mountinfo text). */
export function efivarfsMounted(mountinfo: string, target: string): boolean {
  return parseMountInfo(mountinfo).some((m) => m.mountPoint === target && m.fstype === "efivarfs");
}

/** The loader paths of `candidates` that are on the ESP (loaderKey form). */
async function loadersOn(esp: Esp, candidates: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const c of candidates) if (await findLoader(esp.dir, c)) found.add(loaderKey(c));
  return found;
}

export async function ensureBootOrder(i: BootOrderInput): Promise<BootOrderOutcome> {
  const efiDir = i.efiDir ?? EFI_DIR;
  if (!existsSync(efiDir)) {
    logEvent(i.log, "install.boot_order", { skipped: "not UEFI" }, `UEFI boot order: skipped, ${efiDir} does not exist (the machine did not boot by UEFI)`);
    return { kind: "skipped" };
  }
  const mountinfo = await (i.readMountInfo ?? (() => readFile("/proc/self/mountinfo", "utf8")))();
  const esp = await findEsp({ root: i.root, readMountInfo: async () => mountinfo, ...(i.sysRoot ? { sysRoot: i.sysRoot } : {}), ...(i.devRoot ? { devRoot: i.devRoot } : {}) });
  const removableLoader = i.removableLoader ?? REMOVABLE_LOADERS[process.arch] ?? REMOVABLE_LOADERS.x64!;
  const dir = join(efiDir, "efivars");
  const sys = i.mounts ?? linuxMount;
  const flags = i.flags ?? linuxInodeFlags;
  const mounted = efivarfsMounted(mountinfo, dir);
  if (!mounted) {
    const e = sys.mount("efivarfs", dir, "efivarfs", 0);
    if (e !== 0) throw fail(`cannot mount efivarfs at ${dir} (errno ${e})`, { errno: e });
  }
  try {
    const vars = await readBootVars(dir);
    const loadersOnEsp = await loadersOn(esp, loaderCandidates(vars.entries, i.bootloaderId, removableLoader));
    let plan: BootOrderPlan;
    try {
      plan = planBootOrder({ old: vars.order, entries: vars.entries, bootloaderId: i.bootloaderId, espPartitions: esp.partitions, loadersOnEsp, removableLoader });
    } catch (e) {
      if (e instanceof BootOrderError) throw fail(`${e.message} (the ESP: ${esp.dir} on ${esp.device})`, { bootloaderId: i.bootloaderId });
      throw e;
    }
    const entries = new Map(vars.entries);
    const rejected = plan.rejected.map((r) => `${describeEntry(r.number, vars.entries)}: ${r.why}`);
    for (const w of plan.writes) {
      const name = bootName(w.number);
      writeVariable(dir, name, w.data, flags);
      const back = await readVar(dir, name);
      if (!back || !Buffer.from(back).equals(Buffer.from(w.data)))
        throw fail(`${name} reads back as ${back ? Buffer.from(back).toString("hex") : "missing"} after writing ${Buffer.from(w.data).toString("hex")}`);
      entries.set(w.number, w.option);
      const why = rejected.length > 0 ? `none named "${i.bootloaderId}" boots from it: ${rejected.join("; ")}` : `no entry is named "${i.bootloaderId}"`;
      logEvent(
        i.log,
        "install.boot_entry",
        { entry: name, description: w.option.description, path: formatDevicePath(w.option.filePath), partition: w.partition, reused: w.reused },
        `UEFI boot entry ${name} ${JSON.stringify(w.option.description)} ${w.reused ? "rewritten" : "written"} for the ESP partition ${w.partition}: ${formatDevicePath(w.option.filePath)} (${why})`,
      );
    }
    // BootOrder first: it never names a deleted entry, even if a deletion fails half-way.
    if (plan.changed) writeBootOrder(dir, plan.order, flags);
    for (const n of plan.deletes) {
      const why = plan.rejected.find((r) => r.number === n)?.why ?? "";
      deleteVariable(dir, bootName(n), flags);
      logEvent(
        i.log,
        "install.boot_entry",
        { entry: bootName(n), description: vars.entries.get(n)?.description, deleted: true, why },
        `UEFI boot entry ${describeEntry(n, vars.entries)} deleted: it does not boot the installed OS (${why}); grub-install deletes the entries of its label the same way`,
      );
    }
    const back = await readBootOrder(dir);
    if (back.join() !== plan.order.join()) throw fail(`BootOrder reads back as ${back.join(",")} after writing ${plan.order.join(",")}`);
    const show = (o: readonly number[]) => o.map((n) => describeEntry(n, entries)).join(", ");
    logEvent(
      i.log,
      "install.boot_order",
      {
        bootloaderId: i.bootloaderId,
        old: plan.old,
        order: plan.order,
        changed: plan.changed,
        written: plan.writes.map((w) => bootName(w.number)),
        deleted: plan.deletes.map(bootName),
        ...(rejected.length > 0 ? { rejected } : {}),
      },
      `UEFI boot order ${plan.changed ? "set" : "already right"}: ${show(plan.order)} (was: ${show(plan.old) || "empty"})`,
    );
    return { kind: "set", plan, esp };
  } finally {
    if (!mounted) sys.umount(dir, MNT_DETACH);
  }
}
