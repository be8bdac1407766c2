/**
 * What the planner turns the layout's enums into: the `enum_string_value` option each
 * value carries in metalstack.api.v2's filesystem.proto (metal-stack/api@e6201fcb
 * proto/metalstack/api/v2/filesystem.proto:227-278: sgdisk type codes, mdadm levels,
 * lvcreate types, mkfs names), read from the generated descriptors, so a value the
 * proto adds or renames reaches the planner without a table here. Pure.
 */
import { getOption, type DescEnum } from "@bufbuild/protobuf";
import { enum_string_value } from "../../gen/metalstack/api/v2/common_pb.ts";
import { FormatSchema, GPTTypeSchema, LVMType, LVMTypeSchema, RaidLevelSchema, type Format, type GPTType, type RaidLevel } from "../../gen/metalstack/api/v2/filesystem_pb.ts";

export type FsFormat = "vfat" | "ext3" | "ext4" | "swap" | "tmpfs" | "none";
export type LvmKind = "linear" | "striped" | "raid1";

/** The value's `enum_string_value`; undefined for a number the enum does not define (protojson takes any number) or one without it. */
export function enumString(schema: DescEnum, n: number): string | undefined {
  const v = schema.value[n];
  if (!v) return undefined;
  const s = getOption(v, enum_string_value);
  return s === "" ? undefined : s;
}

/** Every value of the enum that carries an `enum_string_value`, by its protojson name: what a refusal lists as expected. */
export function expectedNames(schema: DescEnum): string {
  const names = schema.values.filter((v) => getOption(v, enum_string_value) !== "").map((v) => v.name);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names.join("");
}

/** The JSON name of a value (`FORMAT_EXT4`), or the number for one the enum does not define. */
export function enumName(schema: DescEnum, n: number): string {
  return schema.value[n]?.name ?? String(n);
}

const FORMATS: readonly string[] = ["vfat", "ext3", "ext4", "swap", "tmpfs", "none"] satisfies FsFormat[];
const LVM_KINDS: readonly string[] = ["linear", "striped", "raid1"] satisfies LvmKind[];

/** mkfs/mount name of a Format; undefined: unspecified or not a value of the enum. */
export function formatOf(f: Format): FsFormat | undefined {
  const s = enumString(FormatSchema, f);
  return s !== undefined && FORMATS.includes(s) ? (s as FsFormat) : undefined;
}

/** sgdisk type code of a GPTType (`ef00`); undefined: unspecified or not a value. */
export function gptTypeCode(t: GPTType): string | undefined {
  return enumString(GPTTypeSchema, t);
}

/** mdadm --level of a RaidLevel; undefined: unspecified or not a value. */
export function raidLevelOf(l: RaidLevel): "0" | "1" | undefined {
  const s = enumString(RaidLevelSchema, l);
  return s === "0" || s === "1" ? s : undefined;
}

/**
 * lvcreate --type of an LVMType; unspecified is metal-hammer's default, linear
 * (metal-stack/metal-hammer@ec148e3 cmd/storage/filesystem.go createLogicalVolumes);
 * undefined: not a value of the enum.
 */
export function lvmKindOf(t: LVMType): LvmKind | undefined {
  if (t === LVMType.LVM_TYPE_UNSPECIFIED) return "linear";
  const s = enumString(LVMTypeSchema, t);
  return s !== undefined && LVM_KINDS.includes(s) ? (s as LvmKind) : undefined;
}
