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
import { AgentError } from "../../errors.ts";
import { MIB, partitionPath, type DiskFacts } from "./facts.ts";
import { createOptionsRule, devicePathRule, lvmTagRule, lvNameRule, mountOptionRule, mountPathRule, unsafeText, vgNameRule, type OptionTool } from "./layout-rules.ts";
import { FormatSchema, GPTType, GPTTypeSchema, LVMTypeSchema, RaidLevelSchema, type Filesystem, type FilesystemLayout } from "../../gen/metalstack/api/v2/filesystem_pb.ts";
import { enumName, expectedNames, formatOf, gptTypeCode, lvmKindOf, raidLevelOf, type FsFormat } from "./layout-enums.ts";

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
const NOT_FOR_MOUNT = new Set([
  "defaults",
  "unbindable",
  "runbindable",
  "private",
  "rprivate",
  "slave",
  "rslave",
  "shared",
  "rshared",
  "auto",
  "noauto",
  "comment",
  "loop",
  "offset",
  "sizelimit",
]);

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

export function planLayout(layout: FilesystemLayout, disks: readonly DiskFacts[], opts: PlanOptions): LayoutPlan {
  const problems: string[] = [];
  const notes: string[] = [];
  const steps: LayoutStep[] = [];
  const devices = new Map<string, Dev>();
  const used = new Map<string, string>();
  const use = (dev: string, by: string): void => {
    const prev = used.get(dev);
    if (prev) problems.push(`${dev} is used twice: by ${prev} and by ${by}`);
    else used.set(dev, by);
  };
  const inventory = new Map(disks.map((d) => [d.path, d]));
  const partitioned = new Set<string>();
  /** A field's value broke a rule: "<field> <value>: <rule>". */
  const bad = (field: string, value: unknown, rule: string | undefined): boolean => {
    if (rule === undefined) return false;
    problems.push(`${field} ${JSON.stringify(value)}: ${rule}`);
    return true;
  };
  const options = (field: string, tool: OptionTool, opts: readonly string[]): void => {
    const r = createOptionsRule(tool, opts);
    if (r) bad(`${field}[${r.index}]`, opts[r.index], r.rule);
  };

  // 1. Partitions.
  for (const [i, disk] of layout.disks.entries()) {
    const dev = disk.device;
    const facts = inventory.get(dev);
    if (dev === "") {
      problems.push(`disks[${i}]: no device`);
      continue;
    }
    if (!facts) {
      problems.push(`disk ${dev}: no such disk on this machine (found: ${disks.map((d) => d.path).join(", ") || "none"})`);
      continue;
    }
    if (partitioned.has(dev)) {
      problems.push(`disk ${dev} is listed twice`);
      continue;
    }
    partitioned.add(dev);
    if (facts.readOnly) problems.push(`disk ${dev} is read-only`);
    const parts = disk.partitions;
    // 1 MiB alignment in front, the backup GPT (and alignment) at the end.
    const usable = Math.floor(facts.sizeBytes / MIB) - 2;
    const fixed = parts.reduce((s, p) => s + mib(p.size), 0);
    const restIdx = parts.findIndex((p) => mib(p.size) === 0);
    const numbers = new Set<number>();
    const args: string[] = ["sgdisk", "--clear"];
    for (const [j, p] of parts.entries()) {
      const n = p.number;
      if (n < 1 || n > 128) problems.push(`disk ${dev} partition ${j}: number ${n}: expected 1..128`);
      if (numbers.has(n)) problems.push(`disk ${dev}: partition number ${n} twice`);
      numbers.add(n);
      const size = mib(p.size);
      if (size === 0 && j !== parts.length - 1) problems.push(`disk ${dev} partition ${n}: size 0 (the rest of the disk) must be the last partition`);
      args.push(size > 0 ? `--new=${n}:0:+${size}M` : `--new=${n}:0:0`);
      if (p.label)
        bad(`disks[${i}].partitions[${j}].label`, p.label, unsafeText(p.label) ?? (Buffer.byteLength(p.label) > 72 ? "longer than a GPT name (36 UTF-16 units)" : undefined));
      if (p.label) args.push(`--change-name=${n}:${p.label}`);
      if (p.gptType !== undefined && p.gptType !== GPTType.GPT_TYPE_UNSPECIFIED) {
        const code = gptTypeCode(p.gptType);
        if (code === undefined) problems.push(`disks[${i}].partitions[${j}].gptType ${p.gptType}: expected one of ${expectedNames(GPTTypeSchema)}`);
        else args.push(`--typecode=${n}:${code}`);
      }
      bad(`disks[${i}].partitions[${j}] device`, partitionPath(dev, n), devicePathRule(partitionPath(dev, n)));
      devices.set(partitionPath(dev, n), { sizeMiB: size > 0 ? size : Math.max(usable - fixed, 0), what: `partition ${n} of ${dev}` });
    }
    const need = fixed + (restIdx >= 0 ? 1 : 0);
    if (need > usable) problems.push(`disk ${dev}: the partitions need ${need} MiB but the disk has ${usable} MiB usable (${facts.sizeBytes} bytes)`);
    args.push(dev);
    steps.push({ kind: "exec", stage: "partition", what: `wipe signatures on ${dev}`, argv: ["wipefs", "--all", "--force", dev], timeoutMs: 60 * SEC });
    steps.push({ kind: "exec", stage: "partition", what: `partition ${dev}`, argv: args, timeoutMs: 60 * SEC });
    steps.push({ kind: "exec", stage: "partition", what: `re-read the partition table of ${dev}`, argv: ["blockdev", "--rereadpt", dev], timeoutMs: 60 * SEC });
    for (const p of parts) {
      const path = partitionPath(dev, p.number);
      steps.push({ kind: "wait", stage: "partition", what: `partition ${path} appears`, path, timeoutMs: 10 * SEC });
    }
  }
  // Whole disks not partitioned by the layout can carry an array member, a PV or a filesystem directly.
  for (const d of disks) if (!partitioned.has(d.path)) devices.set(d.path, { sizeMiB: Math.floor(d.sizeBytes / MIB), what: `disk ${d.path}` });
  const known = (dev: string, by: string): Dev | undefined => {
    const d = devices.get(dev);
    if (!d) problems.push(`${by}: device ${dev} is neither a disk of this machine nor made by the layout`);
    else use(dev, by);
    return d;
  };
  const fss = layout.filesystems;

  // 2. RAID arrays.
  const arrays = new Set<string>();
  for (const [i, r] of layout.raid.entries()) {
    const name = r.arrayName;
    const by = `raid ${name || `[${i}]`}`;
    if (!/^\/dev\/md(\d+|\/[A-Za-z0-9_.-]+)$/.test(name)) problems.push(`${by}: array name ${JSON.stringify(name)}: expected /dev/mdN or /dev/md/<name>`);
    else bad(`raid[${i}].arrayName`, name, devicePathRule(name));
    if (arrays.has(name)) problems.push(`${by}: raid[${i}].arrayName ${JSON.stringify(name)}: listed twice`);
    arrays.add(name);
    options(`raid[${i}].createOptions`, "mdadm", r.createOptions);
    const level = raidLevelOf(r.level);
    if (level === undefined) {
      problems.push(`${by}: ${r.level === 0 ? "no RAID level" : `raid[${i}].level ${r.level} is not a RaidLevel`} (expected ${expectedNames(RaidLevelSchema)})`);
      continue;
    }
    const members = r.devices;
    // int32 upstream: protojson takes a negative number.
    if (r.spares < 0) problems.push(`${by}: raid[${i}].spares ${r.spares}: expected 0 or more`);
    const spares = Math.max(r.spares, 0);
    if (level === "0" && spares > 0) problems.push(`${by}: RAID 0 has no spares (asked for ${spares})`);
    if (members.length - spares < 2) problems.push(`${by}: RAID ${level} needs at least 2 active devices (has ${members.length} devices, ${spares} spares)`);
    const sizes = members.map((m) => known(m, by)?.sizeMiB);
    const known2 = sizes.filter((s): s is number => s !== undefined);
    const active = members.length - spares;
    const size = known2.length === sizes.length && known2.length > 0 ? (level === "1" ? Math.min(...known2) : Math.min(...known2) * active) : undefined;
    const createOptions = [...r.createOptions];
    const carriesEsp = fss.some((f) => f.device === name && formatOf(f.format) === "vfat") || members.some((m) => isBootPartition(layout, m));
    if (carriesEsp) {
      const meta = metadataOption(createOptions);
      if (meta === undefined) {
        createOptions.push("--metadata=1.0");
        notes.push(`${by}: mirrored EFI system partition: --metadata=1.0 added (the superblock at the end, so firmware reads each member as plain FAT)`);
      } else if (meta !== "1.0" && meta !== "1")
        problems.push(`${by}: carries the EFI system partition but asks for --metadata=${meta}; firmware needs 1.0 (superblock at the end)`);
      if (level !== "1") problems.push(`${by}: an EFI system partition can only be mirrored (RAID 1), not RAID ${level}`);
    }
    const argv = ["mdadm", "--create", name, "--force", "--run", "--homehost", "any", "--level", level, "--raid-devices", String(active), "--assume-clean"];
    if (spares > 0) argv.push("--spare-devices", String(spares));
    argv.push(...createOptions, ...members);
    steps.push({ kind: "exec", stage: "raid", what: `create RAID ${level} ${name}`, argv, timeoutMs: 120 * SEC });
    steps.push({ kind: "wait", stage: "raid", what: `array ${name} appears`, path: name, timeoutMs: 10 * SEC });
    // md superblock (1.x) and bitmap take a little room at one end.
    devices.set(name, { sizeMiB: size === undefined ? undefined : Math.max(size - 1, 0), what: `array ${name}` });
  }

  // 3. LVM.
  const vgs = new Map<string, { pvs: number; capacityMiB: number | undefined; requested: number; restLv: string | undefined; lvs: Set<string> }>();
  const diskNames = new Set(disks.map((d) => d.path.replace(/^\/dev\//, "")));
  for (const [i, vg] of layout.volumeGroups.entries()) {
    const name = vg.name;
    const by = `volume group ${name || `[${i}]`}`;
    if (bad(`${by}: volumeGroups[${i}].name`, name, vgNameRule(name, diskNames))) continue;
    if (vgs.has(name)) problems.push(`${by} is listed twice`);
    for (const [k, t] of vg.tags.entries()) bad(`volumeGroups[${i}].tags[${k}]`, t, lvmTagRule(t));
    const pvs = vg.devices;
    if (pvs.length === 0) problems.push(`${by}: no devices`);
    const sizes = pvs.map((d) => known(d, by)?.sizeMiB);
    // Per PV: 1 MiB of metadata in front, then 4 MiB extents.
    const capacityMiB = sizes.every((s) => s !== undefined) ? sizes.reduce((a: number, s) => a + Math.floor(((s as number) - 1) / 4) * 4, 0) : undefined;
    vgs.set(name, { pvs: pvs.length, capacityMiB, requested: 0, restLv: undefined, lvs: new Set() });
    const argv = ["lvm", "vgcreate", "--verbose", "--yes", name];
    for (const t of vg.tags) argv.push("--addtag", t);
    argv.push(...pvs);
    steps.push({ kind: "exec", stage: "lvm", what: `create volume group ${name}`, argv, timeoutMs: 120 * SEC });
  }
  for (const [i, lv] of layout.logicalVolumes.entries()) {
    const name = lv.name;
    const vgName = lv.volumeGroup;
    const by = `logical volume ${vgName}/${name || `[${i}]`}`;
    const vg = vgs.get(vgName);
    if (!vg) {
      problems.push(`${by}: volume group ${JSON.stringify(vgName)} is not in the layout`);
      continue;
    }
    if (bad(`${by}: logicalVolumes[${i}].name`, name, lvNameRule(name))) continue;
    if (vg.lvs.has(name)) problems.push(`${by}: logicalVolumes[${i}].name ${JSON.stringify(name)}: listed twice in ${vgName}`);
    vg.lvs.add(name);
    if (vg.restLv) problems.push(`${by}: comes after ${vg.restLv}, which already takes the rest of ${vgName}`);
    const kind = lvmKindOf(lv.lvmType);
    if (kind === undefined) {
      problems.push(`${by}: logicalVolumes[${i}].lvmType ${lv.lvmType} is not an LVMType (expected ${expectedNames(LVMTypeSchema)})`);
      continue;
    }
    let type = kind;
    if (type !== "linear" && vg.pvs < 2) {
      notes.push(`${by}: ${type} needs 2 or more physical volumes; ${vgName} has ${vg.pvs}: created linear (as metal-hammer does)`);
      type = "linear";
    }
    const size = mib(lv.size);
    const argv = ["lvm", "lvcreate", "--verbose", "--yes", "--name", name, "--wipesignatures", "y"];
    argv.push(...(size > 0 ? ["--size", `${size}m`] : ["--extents", "100%FREE"]));
    if (type === "striped") argv.push("--type", "striped", "--stripes", String(vg.pvs));
    if (type === "raid1") argv.push("--type", "raid1", "--mirrors", "1", "--nosync");
    argv.push(vgName);
    // raid1 keeps two copies plus a metadata extent per leg.
    const cost = size > 0 ? (type === "raid1" ? 2 * Math.ceil(size / 4) * 4 + 8 : Math.ceil(size / 4) * 4) : type === "raid1" ? 16 : 4;
    vg.requested += cost;
    if (size === 0) vg.restLv = by;
    if (vg.capacityMiB !== undefined && vg.requested > vg.capacityMiB)
      problems.push(`${by}: volume group ${vgName} has ${vg.capacityMiB} MiB; its volumes need ${vg.requested} MiB so far`);
    const path = `/dev/${vgName}/${name}`;
    if (bad(`logicalVolumes[${i}] device`, path, devicePathRule(path))) continue;
    steps.push({ kind: "exec", stage: "lvm", what: `create logical volume ${vgName}/${name}`, argv, timeoutMs: 120 * SEC });
    steps.push({ kind: "wait", stage: "lvm", what: `volume ${path} appears`, path, timeoutMs: 10 * SEC });
    devices.set(path, { sizeMiB: size > 0 ? size : undefined, what: `logical volume ${vgName}/${name}` });
  }

  // 4. Filesystems.
  const planned: PlannedFilesystem[] = [];
  const paths = new Set<string>();
  for (const [i, f] of fss.entries()) {
    const by = `filesystem ${f.path ?? (f.device || `[${i}]`)}`;
    const field = `filesystems[${i}]`;
    const format = formatOf(f.format);
    if (format === undefined) {
      problems.push(`${by}: ${f.format === 0 ? "no format" : `${field}.format ${enumName(FormatSchema, f.format)} is not a Format`} (expected ${expectedNames(FormatSchema)})`);
      continue;
    }
    const device = f.device;
    if (format !== "tmpfs") {
      if (device === "") problems.push(`${by}: no device`);
      else known(device, by);
    }
    const label = f.label ?? "";
    const max = LABEL_MAX[format];
    if (max !== undefined && Buffer.byteLength(label) > max) problems.push(`${by}: label ${JSON.stringify(label)} is longer than ${format} allows (${max} bytes)`);
    if (label !== "") bad(`${field}.label`, label, unsafeText(label));
    if (f.path !== undefined) {
      if (bad(`${by}: ${field}.path`, f.path, mountPathRule(f.path))) continue;
      if (paths.has(f.path)) problems.push(`${by}: path ${f.path} is mounted twice`);
      paths.add(f.path);
      if (format === "none") bad(`${field}.path`, f.path, "FORMAT_NONE makes no filesystem: nothing can be mounted there (no path)");
    }
    for (const [k, o] of f.mountOptions.entries()) bad(`${field}.mountOptions[${k}]`, o, mountOptionRule(o));
    const tool: OptionTool | undefined = format === "ext3" || format === "ext4" ? "mke2fs" : format === "swap" ? "mkswap" : format === "vfat" ? "mkfs.fat" : undefined;
    if (tool) options(`${field}.createOptions`, tool, f.createOptions);
    else if (f.createOptions.length > 0) bad(`${field}.createOptions`, f.createOptions, `${format} is not created by the agent: no create options`);
    const mounted = f.path !== undefined && format !== "swap" && format !== "tmpfs" && format !== "none";
    planned.push({ device, format, path: f.path, label, mountOptions: f.mountOptions, target: mounted ? joinRoot(opts.targetRoot, f.path as string) : undefined });
    const mk = mkfsArgv(f, format, device);
    if (mk) steps.push({ kind: "exec", stage: "mkfs", what: `${format} on ${device}`, argv: mk, timeoutMs: 600 * SEC });
  }

  if (!planned.some((f) => f.path === "/" && f.target !== undefined)) problems.push("no filesystem is mounted at / (the installer needs the root filesystem)");
  if (problems.length > 0) {
    const id = layout.id || layout.name;
    throw new AgentError("layout_refused", `filesystem layout${id ? ` ${id}` : ""} refused: ${problems.join("; ")}`, { problems });
  }

  // 5. Mounts, shallowest path first (a stable sort keeps layout order within a depth).
  const withPath = planned.filter((f) => f.path !== undefined).sort((a, b) => pathDepth(a.path as string) - pathDepth(b.path as string));
  for (const f of withPath) {
    if (!f.target) continue;
    steps.push({ kind: "mkdir", stage: "mount", what: `mount point ${f.target}`, path: f.target });
    const o = mountOptionArg(f.mountOptions);
    steps.push({
      kind: "exec",
      stage: "mount",
      what: `mount ${f.device} on ${f.path}`,
      argv: ["mount", "-t", f.format, ...(o ? ["-o", o] : []), f.device, f.target],
      timeoutMs: 60 * SEC,
    });
  }
  return { targetRoot: opts.targetRoot, steps, filesystems: [...withPath, ...planned.filter((f) => f.path === undefined)], notes };
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
