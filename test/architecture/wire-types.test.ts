/**
 * The wire contract has one definition: the generated protobuf-es types in src/gen/
 * (issue 25). A hand-written mirror of a generated message drifts silently, so outside
 * src/gen/ no file of src/ may
 * - declare a zod schema shaped like a generated message (its keys most of the
 *   message's fields),
 * - spell a generated enum's value names as string literals (a mirror of the enum:
 *   code uses the generated enum, `Format.EXT4`),
 * - turn a wire message into JSON (`toJson`, `toJsonString`) except the client
 *   (src/clients/api/), the redacted log view of the allocation (src/agent/allocation.ts)
 *   and the contract writer (src/install/contract.ts, write-contract.ts: it writes the
 *   allocation as received, which travels as JSON from the wait stage).
 */
import { describe, expect, test } from "bun:test";
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const GEN = join(SRC, "gen");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

const generated = sources(GEN);
const handWritten = sources(SRC).filter((f) => !f.startsWith(GEN + "/"));
const rel = (f: string) => relative(SRC, f);

/** Every message and enum the generated files export. */
const descs = (await Promise.all(generated.map((f) => import(f) as Promise<Record<string, unknown>>))).flatMap((m) => Object.values(m));
const messages = descs.filter((d): d is DescMessage => (d as DescMessage | undefined)?.kind === "message");
const enums = descs.filter((d): d is DescEnum => (d as DescEnum | undefined)?.kind === "enum");

/** The text without comments (a comment may name a wire value; code may not mirror it). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

/** The top-level keys of every `z.object({...})` / `z.strictObject({...})` in the text. */
export function zodObjectKeys(text: string): string[][] {
  const out: string[][] = [];
  for (const m of text.matchAll(/\bz\.(?:object|strictObject|looseObject)\(\s*\{/g)) {
    const keys: string[] = [];
    let depth = 1;
    let quote = "";
    let token = "";
    for (let i = (m.index ?? 0) + m[0].length; i < text.length && depth > 0; i++) {
      const c = text[i] as string;
      if (quote) {
        if (c === "\\") i++;
        else if (c === quote) quote = "";
        continue;
      }
      if (c === '"' || c === "'" || c === "`") {
        quote = c;
        continue;
      }
      if ("{[(".includes(c)) depth++;
      else if ("}])".includes(c)) depth--;
      else if (depth === 1 && c === ":" && token !== "") keys.push(token);
      token = /[\w$]/.test(c) ? (/[\w$]/.test(text[i - 1] ?? "") ? token + c : c) : /\s/.test(c) ? token : "";
    }
    out.push(keys);
  }
  return out;
}

/** The generated message a set of keys mirrors: 3 or more of its fields (JSON or proto names) and at least half of them. */
export function mirroredMessage(keys: readonly string[], candidates: readonly DescMessage[]): DescMessage | undefined {
  return candidates.find((msg) => {
    const hit = new Set(msg.fields.filter((f) => keys.includes(f.jsonName) || keys.includes(f.name)).map((f) => f.number));
    return msg.fields.length >= 2 && hit.size >= Math.min(3, msg.fields.length) && hit.size * 2 >= msg.fields.length;
  });
}

describe("the wire contract has one definition (src/gen/)", () => {
  test("the generated files are found and export messages and enums", () => {
    expect(messages.map((m) => m.typeName)).toContain("metalstack.api.v2.FilesystemLayout");
    expect(messages.map((m) => m.typeName)).toContain("metalstack.api.v2.MachineAllocation");
    expect(enums.map((e) => e.typeName)).toContain("metalstack.api.v2.Format");
  });

  test("the mirror detector sees the zod mirror issue 25 removed, and not an unrelated schema", () => {
    const mirror =
      "const Disk = z.object({ device: opt(z.string()), partitions: opt(z.array(DiskPartition)) }).strict();\nconst P = z.object({ number: opt(z.number().int()), label: opt(z.string()), size: opt(uint64), gptType: opt(enumOf(GPT_TYPES)) });";
    expect(zodObjectKeys(mirror)).toEqual([
      ["device", "partitions"],
      ["number", "label", "size", "gptType"],
    ]);
    expect(zodObjectKeys(mirror).map((k) => mirroredMessage(k, messages)?.typeName)).toEqual(["metalstack.api.v2.Disk", "metalstack.api.v2.DiskPartition"]);
    expect(mirroredMessage(["oacs", "fna", "sanicap", "mn"], messages)).toBeUndefined();
  });

  test("no zod schema outside src/gen/ mirrors a generated message", () => {
    const found = handWritten.flatMap((f) =>
      zodObjectKeys(code(readFileSync(f, "utf8"))).flatMap((keys) => {
        const m = mirroredMessage(keys, messages);
        return m ? [`${rel(f)}: z.object({ ${keys.join(", ")} }) mirrors ${m.typeName}`] : [];
      }),
    );
    expect(found).toEqual([]);
  });

  test("no generated enum's value names spelled as string literals outside src/gen/ (use the generated enum)", () => {
    const names = new Set(enums.flatMap((e) => e.values.filter((v) => v.number !== 0).map((v) => v.name)));
    const found = handWritten.flatMap((f) =>
      [...code(readFileSync(f, "utf8")).matchAll(/["'`]([A-Z][A-Z0-9_]+)["'`]/g)].filter((m) => names.has(m[1] as string)).map((m) => `${rel(f)}: ${m[0]}`),
    );
    expect(found).toEqual([]);
  });

  test("toJson of a wire message only in the client, the allocation's log view and the contract writer", () => {
    const allowed = (f: string) => rel(f).startsWith("clients/api/") || ["agent/allocation.ts", "install/contract.ts", "install/write-contract.ts"].includes(rel(f));
    const found = handWritten.filter((f) => !allowed(f) && /\btoJson(?:String)?\s*\(/.test(code(readFileSync(f, "utf8")))).map(rel);
    expect(found).toEqual([]);
  });
});
