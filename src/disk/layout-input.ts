/**
 * The allocation's filesystem layout as protojson, the planner's input. Field names,
 * enum value names and types mirror `metalstack.api.v2.FilesystemLayout` in
 * metal-stack/api@e6201fcb proto/metalstack/api/v2/filesystem.proto:48 exactly:
 * lowerCamelCase fields, enums by their full value name (`FORMAT_EXT4`), uint64 sizes as
 * strings (protojson; numbers are accepted too), uint32/int32 as numbers; fields at
 * their zero value are absent. The protobuf-es types in src/gen/ map onto this at merge.
 */
import { z } from "zod";
import { AgentError } from "../errors.ts";

/** enum Format (filesystem.proto). */
export const FORMATS = ["FORMAT_UNSPECIFIED", "FORMAT_VFAT", "FORMAT_EXT3", "FORMAT_EXT4", "FORMAT_SWAP", "FORMAT_TMPFS", "FORMAT_NONE"] as const;
/** enum GPTType; the `enum_string_value` of each is the sgdisk type code. */
export const GPT_TYPES = ["GPT_TYPE_UNSPECIFIED", "GPT_TYPE_BOOT", "GPT_TYPE_LINUX", "GPT_TYPE_LINUX_RAID", "GPT_TYPE_LINUX_LVM"] as const;
/** enum RaidLevel. */
export const RAID_LEVELS = ["RAID_LEVEL_UNSPECIFIED", "RAID_LEVEL_0", "RAID_LEVEL_1"] as const;
/** enum LVMType. */
export const LVM_TYPES = ["LVM_TYPE_UNSPECIFIED", "LVM_TYPE_LINEAR", "LVM_TYPE_STRIPED", "LVM_TYPE_RAID1"] as const;

export type FormatName = (typeof FORMATS)[number];
export type GptTypeName = (typeof GPT_TYPES)[number];
export type RaidLevelName = (typeof RAID_LEVELS)[number];
export type LvmTypeName = (typeof LVM_TYPES)[number];

/** The `enum_string_value` options of filesystem.proto: sgdisk type codes, mdadm levels, lvcreate types, mkfs names. */
export const GPT_TYPE_CODE: Readonly<Record<Exclude<GptTypeName, "GPT_TYPE_UNSPECIFIED">, string>> = {
  GPT_TYPE_BOOT: "ef00",
  GPT_TYPE_LINUX: "8300",
  GPT_TYPE_LINUX_RAID: "fd00",
  GPT_TYPE_LINUX_LVM: "8e00",
};
export const RAID_LEVEL_VALUE: Readonly<Record<Exclude<RaidLevelName, "RAID_LEVEL_UNSPECIFIED">, "0" | "1">> = { RAID_LEVEL_0: "0", RAID_LEVEL_1: "1" };
export const LVM_TYPE_VALUE: Readonly<Record<LvmTypeName, "linear" | "striped" | "raid1">> = {
  // Unspecified: metal-hammer's default (cmd/storage/filesystem.go createLogicalVolumes).
  LVM_TYPE_UNSPECIFIED: "linear",
  LVM_TYPE_LINEAR: "linear",
  LVM_TYPE_STRIPED: "striped",
  LVM_TYPE_RAID1: "raid1",
};
export const FORMAT_VALUE: Readonly<Record<Exclude<FormatName, "FORMAT_UNSPECIFIED">, "vfat" | "ext3" | "ext4" | "swap" | "tmpfs" | "none">> = {
  FORMAT_VFAT: "vfat",
  FORMAT_EXT3: "ext3",
  FORMAT_EXT4: "ext4",
  FORMAT_SWAP: "swap",
  FORMAT_TMPFS: "tmpfs",
  FORMAT_NONE: "none",
};

export interface FilesystemJson {
  readonly device?: string;
  readonly format?: FormatName;
  readonly name?: string;
  readonly description?: string;
  readonly path?: string;
  readonly label?: string;
  readonly mountOptions?: readonly string[];
  readonly createOptions?: readonly string[];
}

export interface DiskPartitionJson {
  readonly number?: number;
  readonly label?: string;
  /** MiB; absent or "0": the rest of the disk. */
  readonly size?: string;
  readonly gptType?: GptTypeName;
}

export interface DiskJson {
  readonly device?: string;
  readonly partitions?: readonly DiskPartitionJson[];
}

export interface RaidJson {
  readonly arrayName?: string;
  readonly devices?: readonly string[];
  readonly level?: RaidLevelName;
  readonly createOptions?: readonly string[];
  readonly spares?: number;
}

export interface VolumeGroupJson {
  readonly name?: string;
  readonly devices?: readonly string[];
  readonly tags?: readonly string[];
}

export interface LogicalVolumeJson {
  readonly name?: string;
  readonly volumeGroup?: string;
  /** MiB; absent or "0": the rest of the volume group. */
  readonly size?: string;
  readonly lvmType?: LvmTypeName;
}

export interface FilesystemLayoutJson {
  readonly id?: string;
  readonly meta?: unknown;
  readonly name?: string;
  readonly description?: string;
  readonly filesystems?: readonly FilesystemJson[];
  readonly disks?: readonly DiskJson[];
  readonly raid?: readonly RaidJson[];
  readonly volumeGroups?: readonly VolumeGroupJson[];
  readonly logicalVolumes?: readonly LogicalVolumeJson[];
  readonly constraints?: { readonly sizes?: readonly string[]; readonly images?: Readonly<Record<string, string>> };
}

// protojson also accepts enum numbers and 64-bit integers as JSON numbers: normalise both.
const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.unknown().transform((v, ctx): T[number] => {
    if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T[number];
    if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < values.length) return values[v] as T[number];
    ctx.addIssue({ code: "custom", message: `${JSON.stringify(v)}: expected one of ${values.join(", ")} (or its number)` });
    return z.NEVER;
  });
const uint64 = z.unknown().transform((v, ctx): string => {
  if (typeof v === "string" && /^\d+$/.test(v)) return v;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return String(v);
  ctx.addIssue({ code: "custom", message: `${JSON.stringify(v)}: expected an unsigned integer in MiB (protojson: a string of digits)` });
  return z.NEVER;
});
const strings = z.array(z.string()).optional();
const opt = <T extends z.ZodTypeAny>(t: T) => t.optional();

const Filesystem = z.object({ device: opt(z.string()), format: opt(enumOf(FORMATS)), name: opt(z.string()), description: opt(z.string()), path: opt(z.string()), label: opt(z.string()), mountOptions: strings, createOptions: strings }).strict();
const DiskPartition = z.object({ number: opt(z.number().int().nonnegative()), label: opt(z.string()), size: opt(uint64), gptType: opt(enumOf(GPT_TYPES)) }).strict();
const Disk = z.object({ device: opt(z.string()), partitions: opt(z.array(DiskPartition)) }).strict();
const Raid = z.object({ arrayName: opt(z.string()), devices: strings, level: opt(enumOf(RAID_LEVELS)), createOptions: strings, spares: opt(z.number().int().nonnegative()) }).strict();
const VolumeGroup = z.object({ name: opt(z.string()), devices: strings, tags: strings }).strict();
const LogicalVolume = z.object({ name: opt(z.string()), volumeGroup: opt(z.string()), size: opt(uint64), lvmType: opt(enumOf(LVM_TYPES)) }).strict();
const Layout = z
  .object({
    id: opt(z.string()),
    meta: z.unknown().optional(),
    name: opt(z.string()),
    description: opt(z.string()),
    filesystems: opt(z.array(Filesystem)),
    disks: opt(z.array(Disk)),
    raid: opt(z.array(Raid)),
    volumeGroups: opt(z.array(VolumeGroup)),
    logicalVolumes: opt(z.array(LogicalVolume)),
    constraints: z.object({ sizes: strings, images: z.record(z.string(), z.string()).optional() }).passthrough().optional(),
  })
  .strict();

/** Validates protojson (already parsed) into a FilesystemLayoutJson; AgentError("layout_refused") names the field path. */
export function parseLayoutJson(raw: unknown): FilesystemLayoutJson {
  const r = Layout.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    const where = i ? i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "") : "";
    throw new AgentError("layout_refused", `filesystem layout${where ? ` field ${where}` : ""}: ${i?.message ?? "invalid"}`, { field: where });
  }
  return r.data as FilesystemLayoutJson;
}
