/**
 * The apiserver stand-in validates as the real interceptor does (lab/standins/validation.ts):
 * protovalidate with the upstream protos' rules. Every rule upstream puts on a field the
 * agent's requests carry has a case here (the first test fails when upstream adds one): a
 * request breaking it is refused with invalid_argument, protovalidate-go's message and the
 * violation as a buf.validate.Violations detail. The agent's own requests, built by its code
 * from the fixture server's inventory, pass. The fallback (no upstream protos) says so, words
 * its violations the same way, and is refused under CI=true.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromJson, hasOption, toJson, type DescMessage, type JsonObject, type JsonValue, type Message, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { field as fieldRules, ViolationsSchema } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { fallbackValidator, requestValidator, upstreamValidator, validationMessage, type RequestValidator } from "../../../lab/standins/validation.ts";
import { findUpstreamProtos, loadUpstreamRegistry, upstreamDescriptorSet } from "../../../lab/standins/upstream-schema.ts";
import { MachineProvisioningEventType } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { BootService } from "../../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { EventService } from "../../../src/gen/metalstack/infra/v2/event_pb.ts";
import { toInventory } from "../../../src/machine/inventory/map.ts";
import { readFacts } from "../../../src/machine/inventory/read.ts";
import type { LldpNeighbour } from "../../../src/network/lldp/neighbour.ts";
import { registerRequest } from "../../../src/agent/register.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { lldpNeighbour } from "../../helpers/lldp-neighbour.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3140";
const found = findUpstreamProtos();
const missing = typeof found === "string" ? found : undefined;
prerequisites("the upstream validation rules", [missing]);
const registry = typeof found === "string" ? undefined : loadUpstreamRegistry(upstreamDescriptorSet(found));
const upstream = registry ? upstreamValidator(registry) : undefined;

const FIX = join(import.meta.dir, "../../fixtures/inventory");
const siMem = JSON.parse(readFileSync(join(FIX, "si-mem.json"), "utf8")) as { total: number };
const neigh = (iface: string, systemName: string, portId: string, portDescription: string): LldpNeighbour =>
  lldpNeighbour({ interface: iface, systemName, portId, portDescription });

/** The agent's Register request for the fixture server (its sysfs tree) with two switches, as register() sends it. */
async function agentRegister(): Promise<JsonObject> {
  const inv = toInventory(await readFacts({ sysRoot: join(FIX, "sys"), procRoot: join(FIX, "proc"), memTotal: async () => siMem.total }));
  const [a, b] = inv.hardware.nics;
  const ns = new Map([
    [a?.name ?? "", [neigh(a?.name ?? "", "leaf01", "0c:00:00:00:00:01", "Ethernet0")]],
    [b?.name ?? "", [neigh(b?.name ?? "", "leaf02", "0c:00:00:00:00:02", "Ethernet0")]],
  ]);
  return json(BootService.method.register.input, registerRequest(UUID, inv, ns, "fra-equ01", "v0.1.0 (abc123)"));
}

const json = <D extends DescMessage>(schema: D, init: MessageInitShape<D>) => toJson(schema, create(schema, init), { useProtoFieldName: true }) as JsonObject;
const parse = (schema: DescMessage, v: JsonValue): Message => fromJson(schema, v, { ignoreUnknownFields: false });

/** The error a validator throws for `message`, or undefined when it passes. */
function refusal(v: RequestValidator, schema: DescMessage, message: Message): ConnectError | undefined {
  try {
    v.check(schema, message);
    return undefined;
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
}

/** Sets `path` ("hardware.nics[0].neighbors[0].mac") in a protojson object (proto field names). */
function setAt(o: JsonObject, path: string, value: JsonValue): JsonObject {
  const copy = structuredClone(o);
  const keys = path.split(".").flatMap((k) => k.split(/\[(\d+)\]/).filter((x) => x !== ""));
  let at: Record<string, JsonValue> | JsonValue[] = copy;
  keys.forEach((k, i) => {
    const last = i === keys.length - 1;
    const idx = /^\d+$/.test(k) ? Number(k) : k;
    const cur = at as Record<string | number, JsonValue>;
    if (last) cur[idx] = value;
    else {
      cur[idx] ??= /^\d+$/.test(keys[i + 1] ?? "") ? [] : {};
      at = cur[idx] as Record<string, JsonValue>;
    }
  });
  return copy;
}

const long = (n: number) => "x".repeat(n);
const DESCRIPTION = { bad: long(257), message: "must be shorter than 256 characters", ruleId: "string.is_description" };
const NAME = { bad: "a", message: "must be within 2 and 128 characters", ruleId: "string.is_name" };
const MAC = { bad: "Eth1/1(Port1)", message: "this string must be a valid macaddress", ruleId: "string.macaddress" };
const max = (n: number) => ({ bad: long(n + 1), message: `must be at most ${n} characters`, ruleId: "string.max_len" });
const UUID_RULE = { bad: "4c4c4544", message: "must be a valid UUID", ruleId: "string.uuid" };

interface Case {
  readonly method: { input: DescMessage };
  /** The violation's field path, also where the bad value goes. */
  readonly path: string;
  /** The upstream field the rule sits on ("metalstack.api.v2.MachineNic.mac"). */
  readonly rule: string;
  readonly bad: JsonValue;
  readonly message: string;
  readonly ruleId: string;
  /** Set next to the bad value so only it is wrong (a bmc needs its valid fields). */
  readonly with?: Record<string, JsonValue>;
}

const R = BootService.method.register;
const NIC = "metalstack.api.v2.MachineNic";
const BMC_OK = { "bmc.address": "[fd00::1]:623", "bmc.mac": "0c:c4:7a:00:00:01" };
const CASES: Case[] = [
  { method: R, path: "uuid", rule: "metalstack.infra.v2.BootServiceRegisterRequest.uuid", ...UUID_RULE },
  {
    method: R,
    path: "partition",
    rule: "metalstack.infra.v2.BootServiceRegisterRequest.partition",
    bad: "x",
    message: "must be within 2 and 128 characters",
    ruleId: "string.is_partition",
  },
  { method: R, path: "metal_hammer_version", rule: "metalstack.infra.v2.BootServiceRegisterRequest.metal_hammer_version", ...DESCRIPTION },
  { method: R, path: "hardware.disks[0].name", rule: "metalstack.api.v2.MachineBlockDevice.name", ...NAME },
  ...(["vendor", "model"] as const).flatMap((f) => [
    { method: R, path: `hardware.cpus[0].${f}`, rule: `metalstack.api.v2.MetalCPU.${f}`, ...max(256) },
    {
      method: R,
      path: `hardware.gpus[0].${f}`,
      rule: `metalstack.api.v2.MetalGPU.${f}`,
      ...max(256),
      with: { "hardware.gpus[0].vendor": "NVIDIA", "hardware.gpus[0].model": "H100" },
    },
  ]),
  { method: R, path: "hardware.nics[0].mac", rule: `${NIC}.mac`, ...MAC },
  { method: R, path: "hardware.nics[0].name", rule: `${NIC}.name`, ...NAME },
  ...(["identifier", "vendor", "model"] as const).map((f) => ({ method: R, path: `hardware.nics[0].${f}`, rule: `${NIC}.${f}`, ...max(128) })),
  // A neighbour is a MachineNic too: the same rules (SONiC's Port ID in mac, a missing port description in name).
  { method: R, path: "hardware.nics[0].neighbors[0].mac", rule: `${NIC}.mac`, ...MAC },
  { method: R, path: "hardware.nics[0].neighbors[0].name", rule: `${NIC}.name`, ...NAME },
  ...(["version", "vendor", "date"] as const).map((f) => ({ method: R, path: `bios.${f}`, rule: `metalstack.api.v2.MachineBios.${f}`, ...DESCRIPTION })),
  {
    method: R,
    path: "bmc.address",
    rule: "metalstack.api.v2.MachineBMC.address",
    bad: "fd00::1",
    message: "must be a valid host (hostname or IP address) and port pair",
    ruleId: "string.host_and_port",
    with: BMC_OK,
  },
  { method: R, path: "bmc.mac", rule: "metalstack.api.v2.MachineBMC.mac", ...MAC, with: BMC_OK },
  ...(["user", "password", "interface", "version", "power_state"] as const).map((f) => ({
    method: R,
    path: `bmc.${f}`,
    rule: `metalstack.api.v2.MachineBMC.${f}`,
    ...DESCRIPTION,
    with: BMC_OK,
  })),
  ...(
    ["chassis_part_number", "chassis_part_serial", "board_mfg", "board_mfg_serial", "board_part_number", "product_manufacturer", "product_part_number", "product_serial"] as const
  ).map((f) => ({ method: R, path: `fru.${f}`, rule: `metalstack.api.v2.MachineFRU.${f}`, ...DESCRIPTION })),
  { method: BootService.method.wait, path: "uuid", rule: "metalstack.infra.v2.BootServiceWaitRequest.uuid", ...UUID_RULE },
  { method: BootService.method.superUserPassword, path: "uuid", rule: "metalstack.infra.v2.BootServiceSuperUserPasswordRequest.uuid", ...UUID_RULE },
  { method: BootService.method.installationSucceeded, path: "uuid", rule: "metalstack.infra.v2.BootServiceInstallationSucceededRequest.uuid", ...UUID_RULE },
  {
    method: BootService.method.installationSucceeded,
    path: "console_password",
    rule: "metalstack.infra.v2.BootServiceInstallationSucceededRequest.console_password",
    bad: "x",
    message: "must be at least 2 characters",
    ruleId: "string.min_len",
  },
  { method: BootService.method.installationSucceeded, path: "console_password", rule: "metalstack.infra.v2.BootServiceInstallationSucceededRequest.console_password", ...max(128) },
  {
    method: EventService.method.send,
    path: `events["${UUID}"].event`,
    rule: "metalstack.api.v2.MachineProvisioningEvent.event",
    bad: 99,
    message: "value must be one of the defined enum values",
    ruleId: "enum.defined_only",
  },
];

/** The agent's requests, each as its code builds it. */
async function agentRequests(): Promise<Map<DescMessage, JsonObject>> {
  return new Map<DescMessage, JsonObject>([
    [R.input, await agentRegister()],
    [BootService.method.wait.input, json(BootService.method.wait.input, { uuid: UUID })],
    [BootService.method.superUserPassword.input, json(BootService.method.superUserPassword.input, { uuid: UUID })],
    // src/agent/installed-stage.ts: the console password the install wrote (os-installer: 16 characters).
    [BootService.method.installationSucceeded.input, json(BootService.method.installationSucceeded.input, { uuid: UUID, consolePassword: "aB3dE5gH7jK9mN1p" })],
    // src/clients/api/event-reporter.ts EventReporter.send
    [
      EventService.method.send.input,
      json(EventService.method.send.input, {
        events: { [UUID]: { time: timestampFromDate(new Date("2026-01-01T00:00:00Z")), event: MachineProvisioningEventType.ALIVE, message: "booted" } },
      }),
    ],
  ]);
}

/** The request with the case's bad value (events are keyed by uuid: the map path is set by hand). */
function broken(base: JsonObject, c: Case): JsonObject {
  let o = base;
  for (const [p, v] of Object.entries(c.with ?? {})) o = setAt(o, p, v);
  if (c.path.startsWith("events[")) return { events: { [UUID]: { ...((o.events as JsonObject)[UUID] as JsonObject), event: c.bad } } };
  return setAt(o, c.path, c.bad);
}

describe.skipIf(missing !== undefined)(`upstream rules by protovalidate${missing ? ` (skipped: ${missing})` : ""}`, () => {
  test("every upstream rule on a field the agent's requests carry has a case here", () => {
    const touched = new Set<string>();
    const walk = (ours: DescMessage, depth: number) => {
      const theirs = registry?.getMessage(ours.typeName);
      if (!theirs || depth > 3) return;
      for (const f of ours.fields) {
        const t = theirs.fields.find((x) => x.number === f.number);
        if (t && hasOption(t, fieldRules)) touched.add(`${ours.typeName}.${f.name}`);
        const sub = f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message") || (f.fieldKind === "map" && f.mapKind === "message") ? f.message : undefined;
        if (sub) walk(sub, depth + 1);
      }
    };
    for (const m of [R, BootService.method.wait, BootService.method.superUserPassword, BootService.method.installationSucceeded, EventService.method.send]) walk(m.input, 0);
    expect(touched.size).toBeGreaterThan(30);
    expect([...new Set(CASES.map((c) => c.rule))].sort()).toEqual([...touched].sort());
  });

  test("the agent's own requests pass", async () => {
    for (const [schema, request] of await agentRequests())
      expect([schema.typeName, refusal(upstream!, schema, parse(schema, request))?.message]).toEqual([schema.typeName, undefined]);
  });

  test.each(CASES.map((c) => [`${c.method.input.name} ${c.path} [${c.ruleId}]`, c] as const))("%s: refused with the upstream violation", async (_, c) => {
    const base = (await agentRequests()).get(c.method.input) ?? {};
    const e = refusal(upstream!, c.method.input, parse(c.method.input, broken(base, c)));
    expect(e?.code).toBe(Code.InvalidArgument);
    expect(e?.rawMessage).toBe(`validation error: ${c.path}: ${c.message}`);
    const details = e?.findDetails(ViolationsSchema) ?? [];
    expect(details.flatMap((d) => d.violations.map((v) => [v.ruleId, v.message]))).toEqual([[c.ruleId, c.message]]);
  });

  test("the fallback rules word what they cover as protovalidate does", async () => {
    const fallback = fallbackValidator("test");
    const reqs = await agentRequests();
    for (const [schema, request] of reqs) expect(refusal(fallback, schema, parse(schema, request))).toBeUndefined();
    let covered = 0;
    for (const c of CASES) {
      const m = parse(c.method.input, broken(reqs.get(c.method.input) ?? {}, c));
      const ours = refusal(fallback, c.method.input, m);
      if (!ours) continue; // a rule only the upstream protos carry (bmc, fru, the enum)
      covered += 1;
      expect([c.path, ours.rawMessage]).toEqual([c.path, refusal(upstream!, c.method.input, m)?.rawMessage ?? "(upstream: valid)"]);
    }
    expect(covered).toBeGreaterThanOrEqual(20);
  });
});

describe("the upstream protos missing", () => {
  const none = { METAL_API_REFERENCE: join(mkdtempSync(join(tmpdir(), "mh-noref-")), "none"), METAL_PROTOVALIDATE_REFERENCE: "/nonexistent" };

  test("the stand-in says so in one line and falls back to the project's rules", () => {
    const said: string[] = [];
    const v = requestValidator((l) => said.push(l), { ...none, CI: "false" });
    expect(v.source).toBe("fallback");
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("validating with the project's own rules (lab/standins/fallback-rules.ts)");
    const e = refusal(v, R.input, parse(R.input, { uuid: "x", partition: "fra-equ01" }));
    expect([e?.code, e?.rawMessage]).toEqual([Code.InvalidArgument, "validation error: uuid: must be a valid UUID"]);
  });

  test("a reference variable naming a folder without the protos is reported, not crashed on", () => {
    const said: string[] = [];
    expect(requestValidator((l) => said.push(l), { METAL_API_REFERENCE: "/nonexistent", CI: "false" }).source).toBe("fallback");
    expect(said).toEqual([expect.stringContaining("metal-stack/api's protos not found: /nonexistent has no metalstack/ (METAL_API_REFERENCE?)")]);
  });

  test("under CI=true their absence is an error", () => {
    expect(() => requestValidator(() => {}, { ...none, CI: "true" })).toThrow(/under CI the upstream validation rules are required/);
  });

  test("protovalidate-go's wording: one violation, several", () => {
    expect(validationMessage([{ field: "uuid", message: "must be a valid UUID", ruleId: "string.uuid" }])).toBe("validation error: uuid: must be a valid UUID");
    expect(
      validationMessage([
        { field: "a", message: "m1", ruleId: "r1" },
        { field: "", message: "", ruleId: "r2" },
      ]),
    ).toBe("validation errors:\n - a: m1\n - [r2]");
  });
});
