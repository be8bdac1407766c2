/**
 * Writes test/fixtures/contract/reference-shape.json: the upstream shape (names,
 * numbers, types, labels, enum values, method roles) of every message, enum and method
 * our proto/ subset uses, read from ../shared/reference/metal-stack-api. The contract
 * test compares the subset with this file always, and this file with the reference
 * whenever the reference is present. Run: bun tools/contract-fingerprint.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FINGERPRINT, GENERATED, referenceDir } from "../test/clients/api/contract-files.ts";
import { shapeOfGenerated, shapeOfText } from "../test/clients/api/contract-shape.ts";
import { parseProto } from "../test/clients/api/proto-text.ts";

/** JSON with one field, enum value or method per line (reviewable diffs). */
export function formatShape(shape: ReturnType<typeof referenceShape>): string {
  return (
    JSON.stringify(shape, null, 1).replace(
      /\{\s+"name": ("[^"]+"),\s+"number": (\d+),\s+"type": ("[^"]+"),\s+"label": ("[^"]+")\s+\}/g,
      '{ "name": $1, "number": $2, "type": $3, "label": $4 }',
    ) + "\n"
  );
}

export function referenceShape(dir: string) {
  const ours = shapeOfGenerated(GENERATED);
  const texts = GENERATED.map((f) => parseProto(readFileSync(join(dir, f.name + ".proto"), "utf8")));
  return shapeOfText(texts, ours);
}

if (import.meta.main) {
  const dir = referenceDir();
  if (!dir) throw new Error("no ../shared/reference/metal-stack-api/proto found (set METAL_API_REFERENCE)");
  writeFileSync(FINGERPRINT, formatShape(referenceShape(dir)));
  process.stdout.write(`wrote ${FINGERPRINT}\n`);
}
