import { describe, expect, test } from "bun:test";
import { create, toJson } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BootServiceRegisterRequestSchema } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { toInventory } from "../../src/machine/inventory/map.ts";
import { readFacts } from "../../src/machine/inventory/read.ts";
import type { LldpNeighbour } from "../../src/network/lldp/neighbour.ts";
import { explainRefusal, register, registerRequest, switchesSeen } from "../../src/agent/register.ts";
import { ConnectError, connectError } from "../../src/clients/api/connect-error.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { lldpNeighbour } from "../helpers/lldp-neighbour.ts";

const FIX = join(import.meta.dir, "../fixtures/inventory");
const EMPTY = { memTotalBytes: 1 << 30, cpuinfo: "", nets: [], blocks: [], pci: [], dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined } };

const neigh = (iface: string, systemName: string, portId: string, portDescription: string): LldpNeighbour =>
  lldpNeighbour({ interface: iface, systemName, portId, portDescription, chassisId: "aa:bb:cc:dd:ee:ff" });

describe("registerRequest", () => {
  test("as protojson: uuid, hardware (uint64 as strings), bios, partition, version, and the LLDP neighbours mapped to the v2 fields", async () => {
    const total = JSON.parse(readFileSync(join(FIX, "si-mem.json"), "utf8")).total as number;
    const inv = toInventory(await readFacts({ sysRoot: join(FIX, "sys"), procRoot: join(FIX, "proc"), memTotal: async () => total }));
    const lldp = new Map([["eno1", [neigh("eno1", "leaf01", "0c:00:00:00:00:01", "swp1")]]]);
    const json = toJson(
      BootServiceRegisterRequestSchema,
      create(BootServiceRegisterRequestSchema, registerRequest("4c4c4544-0042-3510-8051-b5c04f4a3132", inv, lldp, "fra-equ01", "0.1.0 (abc123)")),
    ) as Record<string, any>;
    expect(json).toMatchObject({
      uuid: "4c4c4544-0042-3510-8051-b5c04f4a3132",
      partition: "fra-equ01",
      metalHammerVersion: "0.1.0 (abc123)",
      bios: { vendor: "American Megatrends Inc." },
    });
    expect(json.hardware.memory).toBe("25276026880");
    expect(json.hardware.nics.map((n: { mac: string }) => n.mac)).toEqual(["3c:ec:ef:10:20:30", "3c:fd:fe:a0:b0:c0", "3c:fd:fe:a0:b0:c1", "02:42:ac:11:00:01"]);
    const eno1 = json.hardware.nics.find((n: { name: string }) => n.name === "eno1");
    expect(eno1?.neighbors).toEqual([{ mac: "0c:00:00:00:00:01", identifier: "0c:00:00:00:00:01", name: "swp1", hostname: "leaf01" }]);
  });

  test("without DMI the bios is still there, with empty strings (the apiserver refuses a Register without bios)", () => {
    const req = create(BootServiceRegisterRequestSchema, registerRequest("u1", toInventory(EMPTY), new Map(), "p1", "v"));
    expect(req.bios).toBeDefined();
    expect(toJson(BootServiceRegisterRequestSchema, req, { alwaysEmitImplicit: true }) as Record<string, unknown>).toMatchObject({ bios: { version: "", vendor: "", date: "" } });
  });
});

describe("a refused Register in operator words", () => {
  test("the two-switch rule names what LLDP saw", () => {
    expect(explainRefusal("failed_precondition", "machine u1 is not connected to exactly two switches, found connections to switches [leaf01]", ["leaf01"])).toBe(
      "machine is not connected to exactly two switches (LLDP saw: leaf01)",
    );
    expect(explainRefusal("failed_precondition", "machine u1 is not connected to exactly two switches, found connections to switches []", [])).toBe(
      "machine is not connected to exactly two switches (LLDP saw: no switch)",
    );
    const noDescription = "validation error:\n - hardware.nics[0].neighbors[0].name: must be within 2 and 128 characters [string.is_name]";
    expect(explainRefusal("invalid_argument", noDescription, ["leaf01", "leaf02"])).toBe(
      `an LLDP neighbour's name (its port description, else its port id) is not 2..128 characters (LLDP saw: leaf01, leaf02): ${noDescription}`,
    );
    const noPartition = "validation error:\n - partition: must be within 2 and 128 characters [string.is_partition]";
    expect(explainRefusal("invalid_argument", noPartition, [])).toBe(
      `the partition is not 2..128 characters (it comes from metal-boot's partition, else METAL_PARTITION on the cmdline): ${noPartition}`,
    );
    // A NIC's own name is not an LLDP matter: the apiserver's words as they came.
    expect(explainRefusal("invalid_argument", "validation error:\n - hardware.nics[0].name: must be within 2 and 128 characters [string.is_name]", [])).toBe(
      "invalid_argument: validation error:\n - hardware.nics[0].name: must be within 2 and 128 characters [string.is_name]",
    );
  });

  test("register() rethrows a refusal as a ConnectError in operator words, the connect code typed and the uuid in the details", async () => {
    const refusing = (e: Error) => ({ unary: async () => Promise.reject(e) });
    const refusal = connectError("apiserver metalstack.infra.v2.BootService/Register", "failed_precondition", "machine u1 is not connected to exactly two switches", {
      status: 400,
    });
    const e = await register(refusing(refusal), { uuid: "u1" }, ["leaf01"]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectError);
    const c = e as ConnectError;
    expect([c.code, c.exitCode, c.connectCode, c.connectMessage]).toEqual(["api_error", 25, "failed_precondition", "machine u1 is not connected to exactly two switches"]);
    expect(c.message).toBe("apiserver refused Register: machine is not connected to exactly two switches (LLDP saw: leaf01)");
    expect(c.details).toMatchObject({ status: 400, uuid: "u1", connectCode: "failed_precondition" });
    expect(c.cause).toBe(refusal);
    // Anything else (here an error whose details merely look like a refusal) goes on as it came.
    const other = new AgentError("unreachable", "apiserver down", { connectCode: "failed_precondition", connectMessage: "x" });
    expect(await register(refusing(other), { uuid: "u1" }).catch((x: unknown) => x)).toBe(other);
  });

  test("switches are counted by distinct system name over all interfaces", () => {
    expect(
      switchesSeen(
        new Map([
          ["a", [neigh("a", "leaf02", "x", "p")]],
          ["b", [neigh("b", "leaf01", "y", "p"), neigh("b", "leaf02", "z", "p")]],
        ]),
      ),
    ).toEqual(["leaf01", "leaf02"]);
  });
});
