/**
 * FilesystemLayout + disk inventory -> the ordered commands that build it, or a
 * refusal listing every problem before anything is written. Pure. The layout is the
 * generated metalstack.api.v2.FilesystemLayout (src/gen) as decoded, no mirror of it:
 * what protojson lets through but cannot be built (an enum number the proto does not
 * define, negative spares, a missing device or format) is a refusal here, named by
 * field. Behaviour kept from metal-hammer
 * (metal-stack/metal-hammer@ec148e3 cmd/storage/filesystem.go:60 Run): partitions with sgdisk in list
 * order (`--new=N:0:+<MiB>M`, name, type code), the partition table re-read; mdadm
 * `--create --force --run --homehost any`, `--assume-clean` for RAID 0/1,
 * `--raid-devices` = devices - spares; `lvm vgcreate` with tags, `lvm lvcreate
 * --wipesignatures y` with `--size <MiB>m` or `--extents 100%FREE`, striped over every PV
 * or raid1 with one mirror and `--nosync`, linear when the VG has one PV; mkfs.ext3/ext4
 * `-F -L`, mkswap `-f -L`, mkfs.vfat `-n`, create options first; mounts ordered by path
 * depth; fstab by UUID (passno 1 for /, 0 for tmpfs, else 2).
 * Changed: a mirrored ESP (vfat on an array, or an ef00 member) gets `--metadata=1.0` so
 * firmware reads each member as plain FAT; a size-0 ("rest") partition is `--new=N:0:0`;
 * the table is created with `--clear`; layouts that cannot fit are refused up front.
 */
import { AgentError } from "../../platform/errors.ts";
import { MIB, partitionPath, type DiskFacts } from "./disk-facts.ts";
import {
  createOptionsRule,
  devicePathRule,
  lvmTagRule,
  lvNameRule,
  MOUNT_PROPAGATION,
  mountOptionRule,
  mountPathRule,
  unsafeText,
  vgNameRule,
  type OptionTool,
} from "./layout-rules.ts";
import {
  FormatSchema,
  GPTType,
  GPTTypeSchema,
  LVMTypeSchema,
  RaidLevelSchema,
  type Disk,
  type DiskPartition,
  type Filesystem,
  type FilesystemLayout,
  type LogicalVolume,
  type Raid,
  type VolumeGroup,
} from "../../gen/metalstack/api/v2/filesystem_pb.ts";
import { enumName, expectedNames, formatOf, gptTypeCode, lvmKindOf, raidLevelOf, type FsFormat, type LvmKind } from "./layout-enums.ts";

export type StepStage = "partition" | "raid" | "lvm" | "mkfs" | "mount";

export type LayoutStep =
  | { readonly kind: "exec"; readonly stage: StepStage; readonly what: string; readonly argv: readonly string[]; readonly timeoutMs: number }
  | { readonly kind: "wait"; readonly stage: StepStage; readonly what: string; readonly path: string; readonly timeoutMs: number }
  | { readonly kind: "mkdir"; readonly stage: StepStage; readonly what: string; readonly path: string };

/** A filesystem as the executor records it (fstab, disk.json). */
export interface PlannedFilesystem {
  readonly device: string;
  readonly format: FsFormat;
  readonly path: string | undefined;
  readonly label: string;
  readonly mountOptions: readonly string[];
  /** Where it is mounted (targetRoot + path), if it is. */
  readonly target: string | undefined;
}

export interface LayoutPlan {
  readonly targetRoot: string;
  readonly steps: readonly LayoutStep[];
  /** In mount order (by path depth), then the rest in layout order. */
  readonly filesystems: readonly PlannedFilesystem[];
  readonly notes: readonly string[];
}

export interface PlanOptions {
  /** Where the filesystems are mounted (metal-hammer: /rootfs). */
  readonly targetRoot: string;
}

const SEC = 1000;
const LABEL_MAX: Readonly<Record<string, number>> = { ext3: 16, ext4: 16, swap: 16, vfat: 11 };
/** Options mount(8) does not pass on to the filesystem (metal-hammer's impossibleMountOptions). */
const NOT_FOR_MOUNT = new Set(["defaults", ...MOUNT_PROPAGATION, "auto", "noauto", "comment", "loop", "offset", "sizelimit"]);

export function mountOptionArg(opts: readonly string[]): string {
  return opts.filter((o) => !NOT_FOR_MOUNT.has(o) && !o.startsWith("x-")).join(",");
}

/** Path depth as metal-hammer counts it: "/" 0, "/var" 1, "/var/lib" 2. */
export function pathDepth(p: string): number {
  return p.split("/").filter((s) => s !== "" && s !== ".").length;
}

/** A uint64 MiB size as a number (sizes beyond 2^53 MiB do not fit any disk and are refused as such). */
const mib = (s: bigint): number => Number(s);
const joinRoot = (root: string, p: string): string => (p === "/" ? root : `${root.replace(/\/+$/, "")}${p}`);

interface Dev {
  /** Usable MiB (undefined: unknown). */
  readonly sizeMiB: number | undefined;
  readonly what: string;
}

/** A volume group as the logical volumes after it see it. */
interface PlannedVg {
  readonly pvs: number;
  readonly capacityMiB: number | undefined;
  /** MiB its logical volumes take so far. */
  requested: number;
  /** The volume that takes the rest of the group, once one does. */
  restLv: string | undefined;
  readonly lvs: Set<string>;
}

/** The one state the planning steps below add to, in layout order. */
interface PlanState {
  readonly layout: FilesystemLayout;
  readonly disks: readonly DiskFacts[];
  readonly opts: PlanOptions;
  /** Everything that refuses the layout; thrown together once every part is checked. */
  readonly problems: string[];
  readonly notes: string[];
  readonly steps: LayoutStep[];
  /** Every device a later part can build on: partitions, whole disks, arrays, volumes. */
  readonly devices: Map<string, Dev>;
  /** Device -> the part of the layout that uses it. */
  readonly used: Map<string, string>;
  /** Disks the layout partitions. */
  readonly partitioned: Set<string>;
  readonly vgs: Map<string, PlannedVg>;
  /** In layout order. */
  readonly planned: PlannedFilesystem[];
}

export function planLayout(layout: FilesystemLayout, disks: readonly DiskFacts[], opts: PlanOptions): LayoutPlan {
  const s = newPlanState(layout, disks, opts);
  planPartitions(s);
  addWholeDisks(s);
  planArrays(s);
  planVolumeGroups(s);
  planLogicalVolumes(s);
  planFilesystems(s);
  requireRoot(s);
  refuseIfProblems(s);
  const mounted = mountOrder(s.planned);
  planMounts(s, mounted);
  return { targetRoot: opts.targetRoot, steps: s.steps, filesystems: [...mounted, ...s.planned.filter((f) => f.path === undefined)], notes: s.notes };
}

function newPlanState(layout: FilesystemLayout, disks: readonly DiskFacts[], opts: PlanOptions): PlanState {
  return { layout, disks, opts, problems: [], notes: [], steps: [], devices: new Map(), used: new Map(), partitioned: new Set(), vgs: new Map(), planned: [] };
}

/** A field's value broke a rule: "<field> <value>: <rule>". */
function bad(s: PlanState, field: string, value: unknown, rule: string | undefined): boolean {
  if (rule === undefined) return false;
  s.problems.push(`${field} ${JSON.stringify(value)}: ${rule}`);
  return true;
}

function checkCreateOptions(s: PlanState, field: string, tool: OptionTool, opts: readonly string[]): void {
  const r = createOptionsRule(tool, opts);
  if (r) bad(s, `${field}[${r.index}]`, opts[r.index], r.rule);
}

/** The device `by` builds on, if the machine or the layout has it; a second user is a problem. */
function known(s: PlanState, dev: string, by: string): Dev | undefined {
  const d = s.devices.get(dev);
  if (!d) {
    s.problems.push(`${by}: device ${dev} is neither a disk of this machine nor made by the layout`);
    return undefined;
  }
  const prev = s.used.get(dev);
  if (prev) s.problems.push(`${dev} is used twice: by ${prev} and by ${by}`);
  else s.used.set(dev, by);
  return d;
}

// 1. Partitions.
function planPartitions(s: PlanState): void {
  const inventory = new Map(s.disks.map((d) => [d.path, d]));
  for (const [i, disk] of s.layout.disks.entries()) {
    const facts = inventory.get(disk.device);
    if (disk.device === "") s.problems.push(`disks[${i}]: no device`);
    else if (!facts) s.problems.push(`disk ${disk.device}: no such disk on this machine (found: ${s.disks.map((d) => d.path).join(", ") || "none"})`);
    else if (s.partitioned.has(disk.device)) s.problems.push(`disk ${disk.device} is listed twice`);
    else planDisk(s, i, disk, facts);
  }
}

function planDisk(s: PlanState, i: number, disk: Disk, facts: DiskFacts): void {
  const dev = disk.device;
  s.partitioned.add(dev);
  if (facts.readOnly) s.problems.push(`disk ${dev} is read-only`);
  const parts = disk.partitions;
  const usable = usableDiskMiB(facts.sizeBytes);
  const fixed = parts.reduce((sum, p) => sum + mib(p.size), 0);
  const numbers = new Set<number>();
  const args: string[] = ["sgdisk", "--clear"];
  const at = { i, dev, last: parts.length - 1, restMiB: Math.max(usable - fixed, 0) };
  for (const [j, p] of parts.entries()) args.push(...planPartition(s, at, j, p, numbers));
  const need = fixed + (parts.some((p) => mib(p.size) === 0) ? 1 : 0);
  if (need > usable) s.problems.push(`disk ${dev}: the partitions need ${need} MiB but the disk has ${usable} MiB usable (${facts.sizeBytes} bytes)`);
  args.push(dev);
  s.steps.push({ kind: "exec", stage: "partition", what: `wipe signatures on ${dev}`, argv: ["wipefs", "--all", "--force", dev], timeoutMs: 60 * SEC });
  s.steps.push({ kind: "exec", stage: "partition", what: `partition ${dev}`, argv: args, timeoutMs: 60 * SEC });
  s.steps.push({ kind: "exec", stage: "partition", what: `re-read the partition table of ${dev}`, argv: ["blockdev", "--rereadpt", dev], timeoutMs: 60 * SEC });
  for (const p of parts) {
    const path = partitionPath(dev, p.number);
    s.steps.push({ kind: "wait", stage: "partition", what: `partition ${path} appears`, path, timeoutMs: 10 * SEC });
  }
}

/** Where a partition sits: its disk's index and device, the last partition's index, the MiB a size-0 partition gets. */
interface PartitionAt {
  readonly i: number;
  readonly dev: string;
  readonly last: number;
  readonly restMiB: number;
}

/** One partition checked and recorded as a device; its sgdisk arguments. */
function planPartition(s: PlanState, at: PartitionAt, j: number, p: DiskPartition, numbers: Set<number>): string[] {
  const { i, dev } = at;
  const n = p.number;
  const args: string[] = [];
  if (n < 1 || n > 128) s.problems.push(`disk ${dev} partition ${j}: number ${n}: expected 1..128`);
  if (numbers.has(n)) s.problems.push(`disk ${dev}: partition number ${n} twice`);
  numbers.add(n);
  const size = mib(p.size);
  if (size === 0 && j !== at.last) s.problems.push(`disk ${dev} partition ${n}: size 0 (the rest of the disk) must be the last partition`);
  args.push(size > 0 ? `--new=${n}:0:+${size}M` : `--new=${n}:0:0`);
  if (p.label)
    bad(s, `disks[${i}].partitions[${j}].label`, p.label, unsafeText(p.label) ?? (Buffer.byteLength(p.label) > 72 ? "longer than a GPT name (36 UTF-16 units)" : undefined));
  if (p.label) args.push(`--change-name=${n}:${p.label}`);
  if (p.gptType !== undefined && p.gptType !== GPTType.GPT_TYPE_UNSPECIFIED) {
    const code = gptTypeCode(p.gptType);
    if (code === undefined) s.problems.push(`disks[${i}].partitions[${j}].gptType ${p.gptType}: expected one of ${expectedNames(GPTTypeSchema)}`);
    else args.push(`--typecode=${n}:${code}`);
  }
  bad(s, `disks[${i}].partitions[${j}] device`, partitionPath(dev, n), devicePathRule(partitionPath(dev, n)));
  s.devices.set(partitionPath(dev, n), { sizeMiB: size > 0 ? size : at.restMiB, what: `partition ${n} of ${dev}` });
  return args;
}

/** MiB a GPT disk of this size holds for partitions: 1 MiB of alignment in front, the backup GPT (and alignment) at the end. */
export function usableDiskMiB(sizeBytes: number): number {
  return Math.floor(sizeBytes / MIB) - 2;
}

/** Whole disks not partitioned by the layout can carry an array member, a PV or a filesystem directly. */
function addWholeDisks(s: PlanState): void {
  for (const d of s.disks) if (!s.partitioned.has(d.path)) s.devices.set(d.path, { sizeMiB: Math.floor(d.sizeBytes / MIB), what: `disk ${d.path}` });
}

// 2. RAID arrays.
function planArrays(s: PlanState): void {
  const names = new Set<string>();
  for (const [i, r] of s.layout.raid.entries()) planArray(s, i, r, names);
}

function planArray(s: PlanState, i: number, r: Raid, names: Set<string>): void {
  const name = r.arrayName;
  const by = `raid ${name || `[${i}]`}`;
  if (!/^\/dev\/md(\d+|\/[A-Za-z0-9_.-]+)$/.test(name)) s.problems.push(`${by}: array name ${JSON.stringify(name)}: expected /dev/mdN or /dev/md/<name>`);
  else bad(s, `raid[${i}].arrayName`, name, devicePathRule(name));
  if (names.has(name)) s.problems.push(`${by}: raid[${i}].arrayName ${JSON.stringify(name)}: listed twice`);
  names.add(name);
  checkCreateOptions(s, `raid[${i}].createOptions`, "mdadm", r.createOptions);
  const level = raidLevelOf(r.level);
  if (level === undefined) {
    s.problems.push(`${by}: ${r.level === 0 ? "no RAID level" : `raid[${i}].level ${r.level} is not a RaidLevel`} (expected ${expectedNames(RaidLevelSchema)})`);
    return;
  }
  const members = r.devices;
  // int32 upstream: protojson takes a negative number.
  if (r.spares < 0) s.problems.push(`${by}: raid[${i}].spares ${r.spares}: expected 0 or more`);
  const spares = Math.max(r.spares, 0);
  if (level === "0" && spares > 0) s.problems.push(`${by}: RAID 0 has no spares (asked for ${spares})`);
  if (members.length - spares < 2) s.problems.push(`${by}: RAID ${level} needs at least 2 active devices (has ${members.length} devices, ${spares} spares)`);
  const sizes = members.map((m) => known(s, m, by)?.sizeMiB);
  const active = members.length - spares;
  const createOptions = [...r.createOptions];
  if (carriesEsp(s.layout, name, members)) espMetadata(s, by, level, createOptions);
  const argv = ["mdadm", "--create", name, "--force", "--run", "--homehost", "any", "--level", level, "--raid-devices", String(active), "--assume-clean"];
  if (spares > 0) argv.push("--spare-devices", String(spares));
  argv.push(...createOptions, ...members);
  s.steps.push({ kind: "exec", stage: "raid", what: `create RAID ${level} ${name}`, argv, timeoutMs: 120 * SEC });
  s.steps.push({ kind: "wait", stage: "raid", what: `array ${name} appears`, path: name, timeoutMs: 10 * SEC });
  s.devices.set(name, { sizeMiB: arraySizeMiB(level, sizes, active), what: `array ${name}` });
}

/**
 * MiB an array offers: RAID 1 its smallest member, else the smallest member times the
 * active devices; less 1 MiB for the md superblock (1.x) and bitmap. Undefined when a
 * member's size is unknown.
 */
export function arraySizeMiB(level: string, memberMiB: readonly (number | undefined)[], active: number): number | undefined {
  const sizes = memberMiB.filter((m): m is number => m !== undefined);
  if (sizes.length !== memberMiB.length || sizes.length === 0) return undefined;
  const size = level === "1" ? Math.min(...sizes) : Math.min(...sizes) * active;
  return Math.max(size - 1, 0);
}

/** An array carries the ESP when a vfat filesystem is made on it or a member is an ef00 partition. */
function carriesEsp(layout: FilesystemLayout, name: string, members: readonly string[]): boolean {
  return layout.filesystems.some((f) => f.device === name && formatOf(f.format) === "vfat") || members.some((m) => isBootPartition(layout, m));
}

/** A mirrored ESP: superblock at the end (--metadata=1.0, added when not asked for), RAID 1 only. */
function espMetadata(s: PlanState, by: string, level: string, createOptions: string[]): void {
  const meta = metadataOption(createOptions);
  if (meta === undefined) {
    createOptions.push("--metadata=1.0");
    s.notes.push(`${by}: mirrored EFI system partition: --metadata=1.0 added (the superblock at the end, so firmware reads each member as plain FAT)`);
  } else if (meta !== "1.0" && meta !== "1") s.problems.push(`${by}: carries the EFI system partition but asks for --metadata=${meta}; firmware needs 1.0 (superblock at the end)`);
  if (level !== "1") s.problems.push(`${by}: an EFI system partition can only be mirrored (RAID 1), not RAID ${level}`);
}

// 3. LVM: volume groups, then their logical volumes.
function planVolumeGroups(s: PlanState): void {
  const diskNames = new Set(s.disks.map((d) => d.path.replace(/^\/dev\//, "")));
  for (const [i, vg] of s.layout.volumeGroups.entries()) planVolumeGroup(s, i, vg, diskNames);
}

function planVolumeGroup(s: PlanState, i: number, vg: VolumeGroup, diskNames: ReadonlySet<string>): void {
  const name = vg.name;
  const by = `volume group ${name || `[${i}]`}`;
  if (bad(s, `${by}: volumeGroups[${i}].name`, name, vgNameRule(name, diskNames))) return;
  if (s.vgs.has(name)) s.problems.push(`${by} is listed twice`);
  for (const [k, t] of vg.tags.entries()) bad(s, `volumeGroups[${i}].tags[${k}]`, t, lvmTagRule(t));
  const pvs = vg.devices;
  if (pvs.length === 0) s.problems.push(`${by}: no devices`);
  const sizes = pvs.map((d) => known(s, d, by)?.sizeMiB);
  s.vgs.set(name, { pvs: pvs.length, capacityMiB: vgCapacityMiB(sizes), requested: 0, restLv: undefined, lvs: new Set() });
  const argv = ["lvm", "vgcreate", "--verbose", "--yes", name];
  for (const t of vg.tags) argv.push("--addtag", t);
  argv.push(...pvs);
  s.steps.push({ kind: "exec", stage: "lvm", what: `create volume group ${name}`, argv, timeoutMs: 120 * SEC });
}

/** MiB a volume group holds: per PV 1 MiB of metadata in front, then whole 4 MiB extents. Undefined when a PV's size is unknown. */
export function vgCapacityMiB(pvMiB: readonly (number | undefined)[]): number | undefined {
  let sum = 0;
  for (const p of pvMiB) {
    if (p === undefined) return undefined;
    sum += Math.floor((p - 1) / 4) * 4;
  }
  return sum;
}

function planLogicalVolumes(s: PlanState): void {
  for (const [i, lv] of s.layout.logicalVolumes.entries()) planLogicalVolume(s, i, lv);
}

function planLogicalVolume(s: PlanState, i: number, lv: LogicalVolume): void {
  const name = lv.name;
  const vgName = lv.volumeGroup;
  const by = `logical volume ${vgName}/${name || `[${i}]`}`;
  const vg = s.vgs.get(vgName);
  if (!vg) {
    s.problems.push(`${by}: volume group ${JSON.stringify(vgName)} is not in the layout`);
    return;
  }
  if (bad(s, `${by}: logicalVolumes[${i}].name`, name, lvNameRule(name))) return;
  if (vg.lvs.has(name)) s.problems.push(`${by}: logicalVolumes[${i}].name ${JSON.stringify(name)}: listed twice in ${vgName}`);
  vg.lvs.add(name);
  if (vg.restLv) s.problems.push(`${by}: comes after ${vg.restLv}, which already takes the rest of ${vgName}`);
  const kind = lvmKindOf(lv.lvmType);
  if (kind === undefined) {
    s.problems.push(`${by}: logicalVolumes[${i}].lvmType ${lv.lvmType} is not an LVMType (expected ${expectedNames(LVMTypeSchema)})`);
    return;
  }
  let type = kind;
  if (type !== "linear" && vg.pvs < 2) {
    s.notes.push(`${by}: ${type} needs 2 or more physical volumes; ${vgName} has ${vg.pvs}: created linear (as metal-hammer does)`);
    type = "linear";
  }
  const size = mib(lv.size);
  const argv = lvcreateArgv(vgName, name, size, type, vg.pvs);
  vg.requested += lvCostMiB(type, size);
  if (size === 0) vg.restLv = by;
  if (vg.capacityMiB !== undefined && vg.requested > vg.capacityMiB)
    s.problems.push(`${by}: volume group ${vgName} has ${vg.capacityMiB} MiB; its volumes need ${vg.requested} MiB so far`);
  const path = `/dev/${vgName}/${name}`;
  if (bad(s, `logicalVolumes[${i}] device`, path, devicePathRule(path))) return;
  s.steps.push({ kind: "exec", stage: "lvm", what: `create logical volume ${vgName}/${name}`, argv, timeoutMs: 120 * SEC });
  s.steps.push({ kind: "wait", stage: "lvm", what: `volume ${path} appears`, path, timeoutMs: 10 * SEC });
  s.devices.set(path, { sizeMiB: size > 0 ? size : undefined, what: `logical volume ${vgName}/${name}` });
}

/** `lvm lvcreate`: a size in MiB or the rest of the group (size 0), striped over every PV or raid1 with one mirror. */
function lvcreateArgv(vgName: string, name: string, sizeMiB: number, type: LvmKind, pvs: number): string[] {
  const argv = ["lvm", "lvcreate", "--verbose", "--yes", "--name", name, "--wipesignatures", "y"];
  argv.push(...(sizeMiB > 0 ? ["--size", `${sizeMiB}m`] : ["--extents", "100%FREE"]));
  if (type === "striped") argv.push("--type", "striped", "--stripes", String(pvs));
  if (type === "raid1") argv.push("--type", "raid1", "--mirrors", "1", "--nosync");
  argv.push(vgName);
  return argv;
}

/**
 * MiB of its group a logical volume takes: its size in whole 4 MiB extents, twice plus
 * a metadata extent per leg for raid1; a "rest" volume (size 0) at least one extent
 * (raid1: two plus metadata).
 */
export function lvCostMiB(type: LvmKind, sizeMiB: number): number {
  if (sizeMiB === 0) return type === "raid1" ? 16 : 4;
  const extents = Math.ceil(sizeMiB / 4) * 4;
  return type === "raid1" ? 2 * extents + 8 : extents;
}

// 4. Filesystems.
function planFilesystems(s: PlanState): void {
  const paths = new Set<string>();
  for (const [i, f] of s.layout.filesystems.entries()) planFilesystem(s, i, f, paths);
}

function planFilesystem(s: PlanState, i: number, f: Filesystem, paths: Set<string>): void {
  const by = `filesystem ${f.path ?? (f.device || `[${i}]`)}`;
  const field = `filesystems[${i}]`;
  const format = formatOf(f.format);
  if (format === undefined) {
    s.problems.push(`${by}: ${f.format === 0 ? "no format" : `${field}.format ${enumName(FormatSchema, f.format)} is not a Format`} (expected ${expectedNames(FormatSchema)})`);
    return;
  }
  const device = f.device;
  if (format !== "tmpfs") {
    if (device === "") s.problems.push(`${by}: no device`);
    else known(s, device, by);
  }
  const label = f.label ?? "";
  const max = LABEL_MAX[format];
  if (max !== undefined && Buffer.byteLength(label) > max) s.problems.push(`${by}: label ${JSON.stringify(label)} is longer than ${format} allows (${max} bytes)`);
  if (label !== "") bad(s, `${field}.label`, label, unsafeText(label));
  if (f.path !== undefined) {
    if (bad(s, `${by}: ${field}.path`, f.path, mountPathRule(f.path))) return;
    if (paths.has(f.path)) s.problems.push(`${by}: path ${f.path} is mounted twice`);
    paths.add(f.path);
    if (format === "none") bad(s, `${field}.path`, f.path, "FORMAT_NONE makes no filesystem: nothing can be mounted there (no path)");
  }
  for (const [k, o] of f.mountOptions.entries()) bad(s, `${field}.mountOptions[${k}]`, o, mountOptionRule(o));
  const tool = createTool(format);
  if (tool) checkCreateOptions(s, `${field}.createOptions`, tool, f.createOptions);
  else if (f.createOptions.length > 0) bad(s, `${field}.createOptions`, f.createOptions, `${format} is not created by the agent: no create options`);
  const mounted = f.path !== undefined && format !== "swap" && format !== "tmpfs" && format !== "none";
  s.planned.push({ device, format, path: f.path, label, mountOptions: f.mountOptions, target: mounted ? joinRoot(s.opts.targetRoot, f.path as string) : undefined });
  const mk = mkfsArgv(f, format, device);
  if (mk) s.steps.push({ kind: "exec", stage: "mkfs", what: `${format} on ${device}`, argv: mk, timeoutMs: 600 * SEC });
}

/** The tool whose create options a format takes (tmpfs and none are not made by the agent). */
function createTool(format: FsFormat): OptionTool | undefined {
  return format === "ext3" || format === "ext4" ? "mke2fs" : format === "swap" ? "mkswap" : format === "vfat" ? "mkfs.fat" : undefined;
}

function requireRoot(s: PlanState): void {
  if (!s.planned.some((f) => f.path === "/" && f.target !== undefined)) s.problems.push("no filesystem is mounted at / (the installer needs the root filesystem)");
}

/** Every problem at once, before anything is written. */
function refuseIfProblems(s: PlanState): void {
  if (s.problems.length === 0) return;
  const id = s.layout.id || s.layout.name;
  throw new AgentError("layout_refused", `filesystem layout${id ? ` ${id}` : ""} refused: ${s.problems.join("; ")}`, { problems: s.problems });
}

/** Filesystems with a path, shallowest first (a stable sort keeps layout order within a depth). */
function mountOrder(planned: readonly PlannedFilesystem[]): PlannedFilesystem[] {
  return planned.filter((f) => f.path !== undefined).sort((a, b) => pathDepth(a.path as string) - pathDepth(b.path as string));
}

// 5. Mounts, in mount order.
function planMounts(s: PlanState, mounted: readonly PlannedFilesystem[]): void {
  for (const f of mounted) {
    if (!f.target) continue;
    s.steps.push({ kind: "mkdir", stage: "mount", what: `mount point ${f.target}`, path: f.target });
    const o = mountOptionArg(f.mountOptions);
    s.steps.push({
      kind: "exec",
      stage: "mount",
      what: `mount ${f.device} on ${f.path}`,
      argv: ["mount", "-t", f.format, ...(o ? ["-o", o] : []), f.device, f.target],
      timeoutMs: 60 * SEC,
    });
  }
}

function mkfsArgv(f: Filesystem, format: FsFormat, device: string): string[] | undefined {
  const create = [...f.createOptions];
  const label = f.label ?? "";
  switch (format) {
    case "ext3":
    case "ext4":
      return [`mkfs.${format}`, ...create, "-F", ...(label ? ["-L", label] : []), device];
    case "swap":
      return ["mkswap", ...create, "-f", ...(label ? ["-L", label] : []), device];
    case "vfat":
      // mkfs.vfat has no force flag: it always overwrites.
      return ["mkfs.vfat", ...create, ...(label ? ["-n", label] : []), device];
    case "tmpfs":
    case "none":
      return undefined;
  }
}

function isBootPartition(layout: FilesystemLayout, dev: string): boolean {
  return layout.disks.some((d) => d.partitions.some((p) => p.gptType === GPTType.GPT_TYPE_BOOT && partitionPath(d.device, p.number) === dev));
}

/** The value of --metadata=X / --metadata X / -e X in mdadm create options. */
function metadataOption(opts: readonly string[]): string | undefined {
  for (const [i, o] of opts.entries()) {
    const m = /^(?:--metadata|-e)=(.+)$/.exec(o);
    if (m) return m[1];
    if (o === "--metadata" || o === "-e") return opts[i + 1];
  }
  return undefined;
}

/** A step as one shell-like line (for `disk plan` and logs). */
export function stepLine(s: LayoutStep): string {
  const q = (a: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  switch (s.kind) {
    case "exec":
      return s.argv.map(q).join(" ");
    case "wait":
      return `# wait up to ${s.timeoutMs / 1000} s for ${s.path}`;
    case "mkdir":
      return `mkdir -p ${q(s.path)}`;
  }
}
