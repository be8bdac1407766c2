/**
 * The stand-ins refuse what the real servers refuse (lab/standins/rules.ts and
 * validation.ts name each upstream source), and the agent handles each refusal as documented
 * (docs/apiserver.md). On loopback; needs openssl for the stand-ins' PKI.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fromBinary } from "@bufbuild/protobuf";
import { ViolationsSchema } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { ConnectClient } from "../../../src/clients/api/connect-client.ts";
import { ConnectError } from "../../../src/clients/api/connect-error.ts";
import { EventReporter } from "../../../src/clients/api/event-reporter.ts";
import { apiVersion } from "../../../src/clients/api/api-version.ts";
import { toAgentError } from "../../../src/platform/errors.ts";
import { MachineProvisioningEventType } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { toInventory } from "../../../src/machine/inventory/map.ts";
import type { LldpNeighbour } from "../../../src/network/lldp/neighbour.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { neighbourNic } from "../../../src/agent/neighbours.ts";
import { isWaitRetryable } from "../../../src/agent/wait-policy.ts";
import { register, registerRequest, type RegisterInit } from "../../../src/agent/register.ts";
import type { Standins } from "../../../lab/standins/standins.ts";
import { loopbackStandins, resetStandins, standinsSkip } from "./suite.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { lldpNeighbour } from "../../helpers/lldp-neighbour.ts";
import { ONE_NIC_FACTS } from "../../helpers/one-nic-facts.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3140";
const OTHER = "4c4c4544-0042-3510-8051-b5c04f4a3141";
const skip = standinsSkip();
// Named in the run; fails under CI=true when something is missing.
prerequisites("the strict stand-ins suite", [skip]);

let st: Standins;
let stop: () => Promise<void>;
let http: HttpClient;
const lines: Record<string, unknown>[] = [];
const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() });

beforeAll(async () => {
  if (skip) return;
  ({ st, stop } = await loopbackStandins("mh-strict-", [{ uuid: UUID, partition: "fra-equ01" }]));
  http = new HttpClient({ caBundle: st.apiCa.certFile, allowHttp: false, log, retry: { attempts: 1, baseMs: 1, capMs: 1, totalMs: 1 } });
});

afterAll(async () => {
  if (skip) return;
  await http?.close();
  await stop();
});

beforeEach(() => {
  if (skip) return;
  resetStandins(st);
  lines.length = 0;
});

const api = (token: string | undefined) => new ConnectClient(http, new URL(st.urls.api), token);
const machineToken = () => st.tokens.issue(UUID);
const neigh = (systemName: string, portId: string): LldpNeighbour => lldpNeighbour({ systemName, portId, chassisId: "x" });
const req = (ns: LldpNeighbour[], uuid = UUID) => registerRequest(uuid, toInventory(ONE_NIC_FACTS), new Map([["eth0", ns]]), "fra-equ01", "test");
const TWO = [neigh("leaf01", "0c:00:00:00:00:01"), neigh("leaf02", "0c:00:00:00:00:02")];
const post = (path: string, body: unknown, token?: string) =>
  http.request({
    method: "POST",
    url: new URL(path, st.urls.api),
    what: "raw",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b));

describe.skipIf(skip !== undefined)(`strict stand-ins${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("VersionService/Get is public: answered without a token (the agent's api stage)", async () => {
    const v = await apiVersion(api(undefined));
    expect(v.version).toBe("v0.5.0-standin");
  });

  test("EventService/Send with the machine token: 403 permission_denied; the agent turns events off with one info line and goes on", async () => {
    const raw = await post("/metalstack.infra.v2.EventService/Send", { events: {} }, machineToken());
    expect([raw.status, json(raw.body).code]).toEqual([403, "permission_denied"]);
    const events = new EventReporter(api(machineToken()), UUID, log);
    expect(await events.send(MachineProvisioningEventType.ALIVE, "booted")).toBe("disabled");
    expect(await events.send(MachineProvisioningEventType.PREPARING, "again")).toBe("off");
    expect(lines.filter((l) => l.event === "provision.event.off")).toHaveLength(1);
    expect(lines.find((l) => l.event === "provision.event.off")?.level).toBe(30);
    // The raw call and the agent's first event were refused; after that the agent makes no more calls.
    expect(st.calls.filter((c) => c.procedure.endsWith("/Send")).map((c) => c.refused)).toEqual(["permission_denied", "permission_denied"]);
  });

  test("an enum display string is not a JSON name: dropped like an unknown field, the event fails; the full name is stored", async () => {
    const infra = st.tokens.issueInfra();
    const bad = await post("/metalstack.infra.v2.EventService/Send", { events: { [UUID]: { event: "Alive", message: "m", someUnknownField: 1 } } }, infra);
    expect(bad.status).toBe(200);
    expect(json(bad.body)).toEqual({ failed: [UUID] });
    // What the server decoded: the unknown enum name and the unknown field are gone.
    expect(st.calls.at(-1)?.request).toEqual({ events: { [UUID]: { message: "m" } } });
    const good = await post("/metalstack.infra.v2.EventService/Send", { events: { [UUID]: { event: "MACHINE_PROVISIONING_EVENT_TYPE_ALIVE", message: "m" } } }, infra);
    expect(json(good.body)).toEqual({ events: "1" });
  });

  test('Register without bios: invalid_argument "bios is nil" (machine.go); the agent always sends bios', async () => {
    const { bios: _b, ...noBios } = req(TWO);
    const raw = await post("/metalstack.infra.v2.BootService/Register", { uuid: UUID, partition: "fra-equ01", hardware: { memory: "1" } }, machineToken());
    expect([raw.status, json(raw.body)]).toEqual([400, { code: "invalid_argument", message: "bios is nil" }]);
    const e = toAgentError(await register(api(machineToken()), noBios).catch((x) => x));
    expect([e.code, e.message]).toEqual(["api_error", "apiserver refused Register: the request has no bios"]);
    expect((await register(api(machineToken()), req(TWO))).uuid).toBe(UUID);
  });

  test("Register with one switch: failed_precondition; the agent says so in operator words (exit 25)", async () => {
    const e = toAgentError(await register(api(machineToken()), req([neigh("leaf01", "0c:00:00:00:00:01")]), ["leaf01"]).catch((x) => x));
    expect(e.exitCode).toBe(25);
    expect(e.message).toBe("apiserver refused Register: machine is not connected to exactly two switches (LLDP saw: leaf01)");
    expect(st.calls.at(-1)?.refused).toBe("failed_precondition");
    expect(st.machines.registered.has(UUID)).toBe(false);
  });

  test("Register with a neighbour port id that is not a MAC: invalid_argument naming the field", async () => {
    const raw = await post(
      "/metalstack.infra.v2.BootService/Register",
      {
        uuid: UUID,
        partition: "fra-equ01",
        hardware: { nics: [{ mac: "52:54:00:12:34:56", name: "eth0", neighbors: [{ mac: "swp1", name: "swp1", hostname: "leaf01" }] }] },
        bios: {},
      },
      machineToken(),
    );
    expect(raw.status).toBe(400);
    // protovalidate-go's words (validation.ts), and the violation as a buf.validate.Violations detail.
    expect(json(raw.body).message).toBe("validation error: hardware.nics[0].neighbors[0].mac: this string must be a valid macaddress");
    const details = json(raw.body).details as { type: string; value: string }[];
    expect(details.map((d) => d.type)).toEqual(["buf.validate.Violations"]);
    const violations = fromBinary(ViolationsSchema, new Uint8Array(Buffer.from(details[0]?.value ?? "", "base64"))).violations;
    expect(violations.map((v) => [v.ruleId, v.message, v.field?.elements.map((e) => e.fieldName).join(".")])).toEqual([
      ["string.macaddress", "this string must be a valid macaddress", "hardware.nics.neighbors.mac"],
    ]);
    // The agent never sends such a neighbour: one with no MAC anywhere (port id and chassis id) is left out,
    // so here leaf01 is missing and the two-switch rule refuses Register instead.
    const e = toAgentError(await register(api(machineToken()), req([neigh("leaf01", "Ethernet1"), neigh("leaf02", "0c:00:00:00:00:02")]), ["leaf01", "leaf02"]).catch((x) => x));
    expect([e.code, e.exitCode]).toEqual(["api_error", 25]);
    expect(st.calls.at(-1)?.request).toMatchObject({ hardware: { nics: [{ neighbors: [{ hostname: "leaf02", mac: "0c:00:00:00:00:02" }] }] } });
  });

  test("Register for a foreign uuid: permission_denied (the token is MACHINE_ROLE_EDITOR for its own uuid only); the agent exits 21", async () => {
    const e = toAgentError(await register(api(machineToken()), req(TWO, OTHER)).catch((x) => x));
    expect([e.code, e.exitCode]).toEqual(["auth", 21]);
    expect(e.message).toStartWith("apiserver refused Register: the machine token is not for this machine");
  });

  test("a bad name, a short partition, a non-UUID, a one-letter disk name and an over-long CPU or GPU model are refused by validation", async () => {
    const hardware = {
      nics: [{ mac: "52:54:00:12:34:56", name: "e" }],
      disks: [{ name: "a", size: "1" }],
      cpus: [{ vendor: "v", model: "m".repeat(257) }],
      gpus: [{ vendor: "v".repeat(257), model: "m" }],
    };
    const raw = await post("/metalstack.infra.v2.BootService/Register", { uuid: "abc", partition: "x", hardware, bios: {} }, st.tokens.issue("abc"));
    expect(raw.status).toBe(400);
    const m = json(raw.body).message as string;
    for (const want of [
      "validation errors:\n - ",
      "\n - uuid: must be a valid UUID",
      "\n - partition: must be within 2 and 128 characters",
      "\n - hardware.nics[0].name: must be within 2 and 128 characters",
      "\n - hardware.disks[0].name: must be within 2 and 128 characters",
      "\n - hardware.cpus[0].model: must be at most 256 characters",
      "\n - hardware.gpus[0].vendor: must be at most 256 characters",
    ])
      expect(m).toContain(want);
    // At the limits: accepted (a 256-character model, a two-letter disk name).
    const limits: RegisterInit = {
      uuid: UUID,
      partition: "fra-equ01",
      bios: {},
      hardware: {
        nics: [{ mac: "52:54:00:12:34:56", name: "eth0", neighbors: TWO.flatMap((n) => neighbourNic(n) ?? []) }],
        disks: [{ name: "vd", size: 1n }],
        cpus: [{ vendor: "v", model: "m".repeat(256), cores: 1, threads: 1 }],
      },
    };
    expect((await register(api(machineToken()), limits)).uuid).toBe(UUID);
  });

  test("Wait for a machine that never registered: not_found (machine.go Wait reads the machine first); the agent does not retry it", async () => {
    const { callStream } = await import("../../../src/clients/api/rpc.ts");
    const { BootService } = await import("../../../src/gen/metalstack/infra/v2/boot_pb.ts");
    const stream = callStream(api(machineToken()), BootService.method.wait, { uuid: UUID });
    const e = toAgentError(await stream.next().catch((x) => x));
    // Typed (what the Wait loop decides by) and in the log line's details, the same values.
    expect(e instanceof ConnectError ? [e.code, e.connectCode, e.retryable, isWaitRetryable(e)] : e.message).toEqual(["api_error", "not_found", false, false]);
    expect([e.details.connectCode, e.details.retryable]).toEqual(["not_found", false]);
    expect(e.message).toContain(`not_found: machine with id "${UUID}" not found`);
    expect(st.calls.map((c) => [c.procedure, c.refused])).toEqual([["metalstack.infra.v2.BootService/Wait", "not_found"]]);
  });

  test("Wait: no headers before the first message, the allocation as one message, and the stream does not end", async () => {
    const token = machineToken();
    await register(api(token), req(TWO));
    const ac = new AbortController();
    let headers = false;
    const res = fetch(new URL("/metalstack.infra.v2.BootService/Wait", st.urls.api), {
      method: "POST",
      headers: { "content-type": "application/connect+json", authorization: `Bearer ${token}` },
      body: (() => {
        const d = new TextEncoder().encode(JSON.stringify({ uuid: UUID }));
        const b = new Uint8Array(5 + d.length);
        new DataView(b.buffer).setUint32(1, d.length);
        b.set(d, 5);
        return b;
      })(),
      signal: ac.signal,
      tls: { ca: st.apiCa.pem },
    }).then((r) => {
      headers = true;
      return r;
    });
    try {
      await waitFor(() => [...st.machines.open].some((w) => w.uuid === UUID), 10_000, "the Wait to be open at the stand-in");
      expect(headers).toBe(false);
      st.machines.allocate(UUID, { uuid: UUID, hostname: "w1", image: { id: "debian-12", url: "https://images.example/debian/12/img.tar.lz4" } });
      const r = await res;
      const reader = r.body!.getReader();
      const first = await reader.read();
      const bytes = first.value!;
      expect(bytes[0]).toBe(0);
      expect(JSON.parse(new TextDecoder().decode(bytes.slice(5)))).toMatchObject({ allocation: { hostname: "w1", image: { id: "debian-12" } } });
      // Still open after the allocation (upstream never ends the stream by itself).
      expect([...st.machines.open].some((w) => w.uuid === UUID)).toBe(true);
    } finally {
      ac.abort();
      await res.catch(() => {});
    }
  });

  test("metal-boot mints a token for any uuid, in pixie's snake_case shape", async () => {
    const h = new HttpClient({ caBundle: st.bootCa.certFile, allowHttp: false, log });
    // pixie api/api.go MetalConfig: ntp_servers is omitempty; with servers configured it is there.
    st.metalBoot.ntpServers = ["fd00:123::1"];
    try {
      const r = await h.request({ method: "GET", url: new URL(`/config/${OTHER}`, st.urls.boot), what: "config" });
      const c = json(r.body);
      expect(r.status).toBe(200);
      expect(Object.keys(c).sort()).toEqual([
        "ca",
        "debug",
        "image_cache_url",
        "metal_apiserver_token_for_hammer",
        "metal_apiserver_url",
        "ntp_servers",
        "partition",
        "pixie_api_url",
      ]);
      expect(st.tokens.verify(c.metal_apiserver_token_for_hammer)).toBe(OTHER);
      expect(c.ntp_servers).toEqual(["fd00:123::1"]);
    } finally {
      st.metalBoot.ntpServers = [];
      await h.close();
    }
  });
});
