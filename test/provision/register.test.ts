import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toInventory } from "../../src/inventory/map.ts";
import { readFacts } from "../../src/inventory/read.ts";
import { registerRequest } from "../../src/provision/register.ts";

const FIX = join(import.meta.dir, "../fixtures/inventory");

describe("registerRequest", () => {
  test("carries uuid, hardware, bios, partition and version, and passes the RegisterRequest schema", async () => {
    const total = JSON.parse(readFileSync(join(FIX, "si-mem.json"), "utf8")).total as number;
    const inv = toInventory(await readFacts({ sysRoot: join(FIX, "sys"), procRoot: join(FIX, "proc"), memTotal: async () => total }));
    const req = registerRequest("4c4c4544-0042-3510-8051-b5c04f4a3132", inv, "fra-equ01", "0.1.0 (abc123)");
    expect(req).toMatchObject({ uuid: "4c4c4544-0042-3510-8051-b5c04f4a3132", partition: "fra-equ01", metalHammerVersion: "0.1.0 (abc123)", tags: [], bios: { vendor: "American Megatrends Inc." } });
    expect(req.hardware.memory).toBe("25276026880");
    expect(req.hardware.nics?.map((n) => n.mac)).toEqual(["3c:ec:ef:10:20:30", "3c:fd:fe:a0:b0:c0", "3c:fd:fe:a0:b0:c1", "02:42:ac:11:00:01"]);
  });

  test("without DMI the request has no bios field at all (proto3: absent, not empty)", () => {
    const inv = toInventory({ memTotalBytes: 1 << 30, cpuinfo: "", nets: [], blocks: [], pci: [], dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined } });
    expect("bios" in registerRequest("u1", inv, "p", "v")).toBe(false);
  });

  test("an empty uuid is refused before anything is sent", () => {
    const inv = toInventory({ memTotalBytes: 1 << 30, cpuinfo: "", nets: [], blocks: [], pci: [], dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined } });
    expect(() => registerRequest("", inv, "p", "v")).toThrow("expected a machine uuid");
  });
});
