/**
 * A layout file for `disk plan|apply`: FilesystemLayout protojson, or an allocation
 * (MachineAllocation protojson, e.g. machine-allocation.yaml) carrying it as
 * `filesystemLayout`. Decoded with the generated schema (protobuf-es fromJson, protojson
 * rules: JSON or proto field names, enums by value name or number, uint64 as a string or
 * number); unknown fields are refused, not skipped (a layout feature the agent does not
 * build must not pass silently). Only the layout of an allocation is decoded, so the
 * allocation's other fields may be newer than our proto/. Pure.
 */
import { fromJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { AgentError } from "../../platform/errors.ts";
import { FilesystemLayoutSchema, type FilesystemLayout } from "../../gen/metalstack/api/v2/filesystem_pb.ts";

/** The file's FilesystemLayout; AgentError("layout_refused") naming the file, the field (JSON path) and what was expected. */
export function parseLayoutFile(path: string, text: string): FilesystemLayout {
  let raw: JsonValue;
  try {
    raw = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new AgentError("layout_refused", `layout file ${path}: not JSON (${(e as Error).message}; expected FilesystemLayout protojson)`, { file: path });
  }
  const wrapped = raw !== null && typeof raw === "object" && !Array.isArray(raw) && ("filesystemLayout" in raw || "filesystem_layout" in raw);
  const json = wrapped ? (((raw as Record<string, JsonValue>).filesystemLayout ?? (raw as Record<string, JsonValue>).filesystem_layout) as JsonValue) : raw;
  const prefix = wrapped ? "filesystemLayout" : "";
  try {
    return fromJson(FilesystemLayoutSchema, json);
  } catch (e) {
    const at = locate(FilesystemLayoutSchema, json, prefix);
    const why = (e as Error).message.replace(/^\[[a-z_]+\] /, "");
    throw new AgentError(
      "layout_refused",
      `layout file ${path}${at.path ? ` field ${at.path}` : ""}: ${at.message ?? why} (expected FilesystemLayout protojson, metalstack.api.v2)`,
      { file: path, field: at.path },
    );
  }
}

interface Located {
  readonly path: string;
  readonly message: string | undefined;
}

/**
 * The JSON path of the first member the schema refuses, found by decoding member by
 * member with the same generated schema (so the rules stay protobuf-es's), descending
 * into messages and lists of messages.
 */
function locate(schema: DescMessage, json: JsonValue, at: string): Located {
  if (json === null || typeof json !== "object" || Array.isArray(json))
    return { path: at, message: `expected a JSON object, got ${json === null ? "null" : Array.isArray(json) ? "an array" : typeof json}` };
  for (const [key, value] of Object.entries(json)) {
    const here = at ? `${at}.${key}` : key;
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) return { path: here, message: `unknown field (${schema.typeName} has ${schema.fields.map((f) => f.jsonName).join(", ")})` };
    try {
      fromJson(schema, { [key]: value });
      continue;
    } catch (e) {
      if (field.fieldKind === "message" && value !== null && typeof value === "object" && !Array.isArray(value)) return locate(field.message, value, here);
      if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
        for (const [i, item] of value.entries()) {
          try {
            fromJson(field.message, item);
          } catch {
            return locate(field.message, item, `${here}[${i}]`);
          }
        }
      }
      const expected = field.fieldKind === "enum" ? `; expected one of ${field.enum.values.map((v) => v.name).join(", ")} (or its number)` : "";
      return { path: here, message: `${(e as Error).message.replace(/^\[[a-z_]+\] /, "")}${expected}` };
    }
  }
  return { path: at, message: undefined };
}
