import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machineId, normaliseDmi } from "../../../src/clients/metal-boot/machine-uuid.ts";

const dirs: string[] = [];
function sysfs(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "mha-sysfs-"));
  dirs.push(root);
  mkdirSync(join(root, "class/dmi/id"), { recursive: true });
  for (const [k, v] of Object.entries(files)) writeFileSync(join(root, "class/dmi/id", k), v);
  return root;
}
const read = async (p: string) => new Uint8Array(await Bun.file(p).arrayBuffer());
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("machine uuid", () => {
  test("product_uuid is read, trimmed and lower-cased", async () => {
    const root = sysfs({ product_uuid: "4C4C4544-0042-3510-8051-B5C04F4A3132\n" });
    expect(await machineId(undefined, read, root)).toEqual({ uuid: "4c4c4544-0042-3510-8051-b5c04f4a3132", source: "product_uuid" });
  });

  test("a placeholder product_uuid falls back to product_serial when that is a UUID", async () => {
    const root = sysfs({ product_uuid: "00000000-0000-0000-0000-000000000000\n", product_serial: "4C4C4544-0042-3510-8051-B5C04F4A3199\n" });
    expect(await machineId(undefined, read, root)).toEqual({ uuid: "4c4c4544-0042-3510-8051-b5c04f4a3199", source: "product_serial" });
  });

  test("a product_serial that is not a UUID is refused (the API requires one): exit 20 naming both sources", async () => {
    const root = sysfs({ product_uuid: "00000000-0000-0000-0000-000000000000\n", product_serial: "ABC123\n" });
    const e = await machineId(undefined, read, root).catch((x) => x);
    expect(e.exitCode).toBe(20);
    expect(e.message).toContain("neither product_uuid nor product_serial holds one");
    expect(e.message).toContain(`${root}/class/dmi/id/product_serial: "ABC123" is not a UUID`);
    expect(e.message).toContain(`${root}/class/dmi/id/product_uuid: "00000000-0000-0000-0000-000000000000" is a placeholder or not a UUID`);
  });

  test("the cmdline/--uuid override wins without reading sysfs", async () => {
    expect(
      await machineId("AA-BB-CC-DD", async () => {
        throw new Error("must not read");
      }),
    ).toEqual({ uuid: "aa-bb-cc-dd", source: "cmdline" });
  });

  test("nothing usable: metal_boot error naming each file tried", async () => {
    const root = sysfs({ product_serial: "Not Specified" });
    const e = await machineId(undefined, read, root).catch((x) => x);
    expect(e.code).toBe("metal_boot");
    expect(e.message).toContain(`${root}/class/dmi/id/product_uuid`);
    expect(e.message).toContain("not a UUID");
    expect(e.message).toContain("METAL_UUID=");
  });

  test("placeholders are recognised", () => {
    expect(normaliseDmi("To Be Filled By O.E.M.")).toBeUndefined();
    expect(normaliseDmi("not-a-uuid")).toBeUndefined();
    expect(normaliseDmi(" 4C4C4544-0042-3510-8051-B5C04F4A3132\n")).toBe("4c4c4544-0042-3510-8051-b5c04f4a3132");
  });
});
