/**
 * The contract as plain data (full names -> fields, enum values, methods), from two
 * sides: the generated descriptors (src/gen, what the agent really encodes) and the
 * upstream .proto text (proto-text.ts). test/clients/api/contract.test.ts compares them.
 */
import { ScalarType, getOption, type DescEnum, type DescField, type DescFile } from "@bufbuild/protobuf";
import { infra_roles, InfraRoleSchema, machine_roles, MachineRoleSchema, visibility, VisibilitySchema } from "../../../src/gen/metalstack/api/v2/common_pb.ts";
import type { ProtoField, ProtoFile } from "./proto-text.ts";

export interface Shape {
  readonly messages: Record<string, ProtoField[]>;
  readonly enums: Record<string, Record<string, number>>;
  /** "pkg.Service/Method" -> "Input -> [stream ]Output; option=value, ..." */
  readonly methods: Record<string, string>;
}

const SCALARS = new Set(["double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "bytes", "uint32", "sfixed32", "sfixed64", "sint32", "sint64"]);

const valueName = (e: DescEnum, n: number) => e.values.find((v) => v.number === n)?.name ?? String(n);

const scalarName = (s: ScalarType) => ScalarType[s].toLowerCase();

function fieldType(f: DescField): string {
  switch (f.fieldKind) {
    case "scalar":
      return scalarName(f.scalar);
    case "enum":
      return f.enum.typeName;
    case "message":
      return f.message.typeName;
    case "list":
      return f.listKind === "scalar" ? scalarName(f.scalar) : f.listKind === "enum" ? f.enum.typeName : f.message.typeName;
    case "map": {
      const v = f.mapKind === "scalar" ? scalarName(f.scalar) : f.mapKind === "enum" ? f.enum.typeName : f.message.typeName;
      return `map<${scalarName(f.mapKey)},${v}>`;
    }
  }
}

function fieldLabel(f: DescField): ProtoField["label"] {
  if (f.fieldKind === "map") return "map";
  if (f.fieldKind === "list") return "repeated";
  return f.proto.proto3Optional ? "optional" : "singular";
}

const stripPkg = (s: string) => s.replace(/^metalstack\.api\.v2\./, "");

export function shapeOfGenerated(files: readonly DescFile[]): Shape {
  const shape: Shape = { messages: {}, enums: {}, methods: {} };
  for (const file of files) {
    for (const m of file.messages) {
      shape.messages[m.typeName] = m.fields.map((f) => ({ name: f.name, number: f.number, type: fieldType(f), label: fieldLabel(f) }));
    }
    for (const e of file.enums) shape.enums[e.typeName] = Object.fromEntries(e.values.map((v) => [v.name, v.number]));
    for (const s of file.services) {
      for (const m of s.methods) {
        const opts: string[] = [];
        const mr = getOption(m, machine_roles);
        if (mr.length) opts.push(`machine_roles=${mr.map((r) => valueName(MachineRoleSchema, r)).join("|")}`);
        const ir = getOption(m, infra_roles);
        if (ir.length) opts.push(`infra_roles=${ir.map((r) => valueName(InfraRoleSchema, r)).join("|")}`);
        const vis = getOption(m, visibility);
        if (vis) opts.push(`visibility=${valueName(VisibilitySchema, vis)}`);
        shape.methods[`${s.typeName}/${m.name}`] = `${m.input.typeName} -> ${m.methodKind === "server_streaming" ? "stream " : ""}${m.output.typeName}; ${opts.join(", ")}`;
      }
    }
  }
  return shape;
}

/** Resolves a type as written in `pkg` to its full name (scalars and maps stay as they are, map values resolved). */
function resolve(type: string, pkg: string): string {
  const map = /^map<(\w+),(.+)>$/.exec(type);
  if (map) return `map<${map[1]},${resolve(map[2] ?? "", pkg)}>`;
  if (SCALARS.has(type)) return type;
  if (type.startsWith("google.protobuf.") || type.startsWith("metalstack.")) return type;
  return `${pkg}.${type}`;
}

/** The same shape from upstream .proto texts, restricted to the names `only` lists. */
export function shapeOfText(files: readonly ProtoFile[], only: Shape): Shape {
  const shape: Shape = { messages: {}, enums: {}, methods: {} };
  for (const f of files) {
    for (const [name, fields] of f.messages) {
      const full = `${f.package}.${name}`;
      if (full in only.messages) shape.messages[full] = fields.map((x) => ({ ...x, type: resolve(x.type, f.package) }));
    }
    for (const [name, values] of f.enums) {
      const full = `${f.package}.${name}`;
      if (full in only.enums) shape.enums[full] = Object.fromEntries(values);
    }
    for (const [name, methods] of f.services) {
      for (const m of methods) {
        const key = `${f.package}.${name}/${m.name}`;
        if (!(key in only.methods)) continue;
        const opts: string[] = [];
        for (const k of ["machine_roles", "infra_roles", "visibility"]) {
          const v = Object.entries(m.options).find(([o]) => stripPkg(o) === k)?.[1];
          if (v) opts.push(`${k}=${v}`);
        }
        shape.methods[key] = `${resolve(m.input, f.package)} -> ${m.serverStreaming ? "stream " : ""}${resolve(m.output, f.package)}; ${opts.join(", ")}`;
      }
    }
  }
  return shape;
}
