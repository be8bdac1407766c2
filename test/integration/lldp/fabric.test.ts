/**
 * Register on metal-stack's fabric, end to end from real switches' LLDP: Debian's
 * lldpd in two switch namespaces, configured as SONiC's lldpmgrd configures it (Port
 * ID = the port's alias, locally assigned; Port Description Ethernet0; System Name =
 * hostname) or as Cumulus runs it (lldpd defaults: Port ID = the port's MAC,
 * description swp1); the agent's LLDP session in the machine namespace hears them; the
 * agent's Register request (src/agent/register.ts) goes to the apiserver stand-in
 * holding the switch table as metal-core registers it (lab/standins/switches.ts). The
 * v1 mapping (mac = Port ID) of the same neighbours is refused, naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConnectClient } from "../../../src/clients/api/connect-client.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { toInventory } from "../../../src/machine/inventory/map.ts";
import type { LldpNeighbour } from "../../../src/network/lldp/neighbour.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { register, registerRequest, type RegisterInit } from "../../../src/agent/register.ts";
import type { Standins } from "../../../lab/standins/standins.ts";
import type { SwitchOs } from "../../../lab/standins/switches.ts";
import { loopbackStandins, resetStandins } from "../api/suite.ts";
import { SKIP, withSwitches, type Switch, type SwitchLab } from "./switches.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3150";
const ALIAS = "Eth1/1(Port1)";

let st: Standins;
let stop: () => Promise<void>;
let http: HttpClient;

beforeAll(async () => {
  if (SKIP) return;
  ({ st, stop } = await loopbackStandins("mh-fabric-", [{ uuid: UUID, partition: "fra-equ01" }]));
  const log = createLogger({ level: "warn", format: "json", write: () => {}, secrets: new SecretSet() });
  http = new HttpClient({ caBundle: st.apiCa.certFile, allowHttp: false, log, retry: { attempts: 1, baseMs: 1, capMs: 1, totalMs: 1 } });
});

afterAll(async () => {
  if (SKIP) return;
  await http?.close();
  await stop();
});

/** lldpcli lines as the switch OS configures lldpd on its port `ifname` (sonic-buildimage lldpd.conf.j2:31, lldpmgrd:147-160). */
const shape = (os: SwitchOs, ifname: string): string[] =>
  os === "sonic"
    ? ["configure lldp portidsubtype ifname", `configure ports ${ifname} lldp portidsubtype local ${ALIAS} description Ethernet0`]
    : [`configure ports ${ifname} lldp portdescription swp1`];

/** Two leaves of `os`, the agent's session on both links; resolves with what it heard, by agent interface. */
async function hear(s: SwitchLab, os: SwitchOs): Promise<{ a: Switch; b: Switch; heard: Map<string, LldpNeighbour[]> }> {
  const [a, b] = [s.addSwitch(), s.addSwitch()] as [Switch, Switch];
  await s.startLldpd(a, "leaf01", shape(os, a.link.routerIf));
  await s.startLldpd(b, "leaf02", shape(os, b.link.routerIf));
  // lldpd applies the -O lines one by one: wait (bounded) until the port announces the configured Port ID.
  const want = os === "sonic" ? ALIAS : "swp1";
  for (const sw of [a, b]) await s.waitAnnouncing(sw, want);
  const d = s.driver({ interfaces: [a.link.agentIf, b.link.agentIf], systemName: UUID, switches: 2, timeoutMs: 20_000 });
  const r = await d.done;
  expect(r.code).toBe(0);
  const heard = new Map(Object.entries(r.result?.neighbours ?? {}).map(([k, v]) => [k, v as unknown as LldpNeighbour[]]));
  return { a, b, heard };
}

const inventory = (a: Switch, b: Switch) =>
  toInventory({
    memTotalBytes: 1 << 30,
    cpuinfo: "",
    nets: [a, b].map((sw, i) => ({
      name: sw.link.agentIf,
      address: `52:54:00:00:0f:0${i + 1}`,
      type: "1",
      speed: undefined,
      devicePath: undefined,
      vendorId: undefined,
      deviceId: undefined,
      driver: undefined,
    })),
    blocks: [],
    pci: [],
    dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined },
  });

/** The stand-in apiserver's control endpoints: POST with a body, else GET. */
async function control(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(new URL(path, st.urls.api), {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? null : JSON.stringify(body),
    tls: { ca: st.apiCa.pem },
  });
  return (await r.json()) as Record<string, unknown>;
}

const api = () => new ConnectClient(http, new URL(st.urls.api), st.tokens.issue(UUID));

describe.skipIf(SKIP !== undefined)("Register with neighbours heard from real lldpd shaped as SONiC and as Cumulus", () => {
  for (const os of ["sonic", "cumulus"] as const) {
    test(`${os}: Register is accepted and the machine is connected to the port on both leaves`, async () => {
      resetStandins(st);
      await withSwitches(async (s) => {
        const { a, b, heard } = await hear(s, os);
        const ports = (sw: Switch) => (os === "sonic" ? [{ name: "Ethernet0", alias: ALIAS }] : [{ name: "swp1", mac: sw.mac }]);
        // The switch table as metal-core would register the leaves, through the stand-in's control endpoint.
        const set = await control("/_standin/switches", {
          switches: [
            { id: "leaf01", os, ports: ports(a) },
            { id: "leaf02", os, ports: ports(b) },
          ],
        });
        expect(set.ok).toBe(true);
        const one = heard.get(a.link.agentIf)?.[0];
        if (os === "sonic") expect([one?.portIdSubtype, one?.portId, one?.portDescription, one?.chassisId]).toEqual([7, ALIAS, "Ethernet0", a.mac]);
        else expect([one?.portIdSubtype, one?.portId, one?.portDescription]).toEqual([3, a.mac, "swp1"]);
        const r = await register(api(), registerRequest(UUID, inventory(a, b), heard, "fra-equ01", "test"), ["leaf01", "leaf02"]);
        expect(r.uuid).toBe(UUID);
        const port = os === "sonic" ? "Ethernet0" : "swp1";
        expect(st.machines.connections(UUID)).toEqual([
          { switch: "leaf01", port },
          { switch: "leaf02", port },
        ]);
        expect(((await control("/_standin/machines")) as { connections: Record<string, unknown> }).connections[UUID]).toEqual([
          { switch: "leaf01", port },
          { switch: "leaf02", port },
        ]);
        const sent = st.calls.at(-1)?.request as { hardware: { nics: { name: string; neighbors: unknown[] }[] } };
        expect(sent.hardware.nics.find((n) => n.name === a.link.agentIf)?.neighbors).toEqual([
          os === "sonic" ? { mac: a.mac, name: "Ethernet0", identifier: ALIAS, hostname: "leaf01" } : { mac: a.mac, name: "swp1", identifier: a.mac, hostname: "leaf01" },
        ]);

        if (os !== "sonic") return;
        // The v1 mapping of the same neighbours (mac = identifier = Port ID) is refused, naming the field.
        resetStandins(st);
        const nics = [a, b].map((sw, i) => ({
          mac: `52:54:00:00:0f:0${i + 1}`,
          name: sw.link.agentIf,
          neighbors: (heard.get(sw.link.agentIf) ?? []).map((x) => ({ mac: x.portId, identifier: x.portId, name: x.portDescription, hostname: x.systemName })),
        }));
        const v1: RegisterInit = { uuid: UUID, partition: "fra-equ01", bios: {}, hardware: { memory: 1n, nics } };
        const e = await register(api(), v1, ["leaf01", "leaf02"]).catch((x: Error) => x);
        expect(e).toBeInstanceOf(Error);
        // protovalidate's words for both NICs (the stand-in validates with the upstream rules).
        expect((e as Error).message).toContain(
          "validation errors:\n - hardware.nics[0].neighbors[0].mac: this string must be a valid macaddress\n - hardware.nics[1].neighbors[0].mac: this string must be a valid macaddress",
        );
        expect(st.calls.at(-1)?.refused).toBe("invalid_argument");
        expect(st.machines.registered.has(UUID)).toBe(false);

        // metal-core under its "name" naming schema registers Identifier = EthernetN (sonic.go:207-215): the alias
        // Port ID matches no port, and Register goes through connecting nothing, as the real apiserver does.
        resetStandins(st);
        await control("/_standin/switches", { switches: ["leaf01", "leaf02"].map((id) => ({ id, os, ports: [{ name: "Ethernet0", alias: "Ethernet0" }] })) });
        expect((await register(api(), registerRequest(UUID, inventory(a, b), heard, "fra-equ01", "test"), ["leaf01", "leaf02"])).uuid).toBe(UUID);
        expect(((await control("/_standin/machines")) as { connections: Record<string, unknown> }).connections[UUID]).toEqual([]);
      });
    }, 60_000);
  }
});
