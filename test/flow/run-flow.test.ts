/**
 * The flow with its services built by the test (the composition root's job): a fake
 * bring-up and LLDP session, the hardware from facts, the strict stand-ins on loopback.
 * Each stage gets the typed results of the earlier ones; `from` starts later stages
 * from what the earlier ones wrote.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { configFromCmdline } from "../../src/config/config.ts";
import { toAgentError } from "../../src/errors.ts";
import { runFlow, type StartStage } from "../../src/flow/run-flow.ts";
import type { Services } from "../../src/flow/services.ts";
import { HttpClient } from "../../src/http/client.ts";
import { toInventory } from "../../src/inventory/map.ts";
import type { LldpNeighbour, LldpSession } from "../../src/lldp/neighbour.ts";
import { createLogger } from "../../src/log/logger.ts";
import { SecretSet } from "../../src/log/redact.ts";
import type { NetworkSummary } from "../../src/net/summary.ts";
import type { Standins } from "../lab/standins/standins.ts";
import { loopbackStandins, resetStandins, standinsSkip } from "../integration/api/suite.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3160";
const skip = standinsSkip();
let st: Standins;
let dir: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  if (skip) return;
  ({ st, dir, stop } = await loopbackStandins("mh-flow-", [{ uuid: UUID, partition: "fra-equ01" }]));
});
afterAll(async () => {
  if (!skip) await stop();
});
beforeEach(() => {
  if (skip) return;
  resetStandins(st);
  st.machines.allocate(UUID, { uuid: UUID, hostname: "w1", image: { id: "debian-12" } });
});

const NET: NetworkSummary = { interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"], state: "ready" }], dns: { servers: [], search: [] }, timingsMs: {} };
const neigh = (systemName: string, portId: string): LldpNeighbour => ({ interface: "eth0", chassisId: portId, chassisIdSubtype: 4, portId, portIdSubtype: 3, portDescription: "swp1", systemName, ttlSeconds: 120, managementAddresses: [] });

function services(run: string, over: Partial<Services> = {}) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() });
  const seen: { bringUp: number; inventoryNet: (NetworkSummary | undefined)[]; lldpName: string[] } = { bringUp: 0, inventoryNet: [], lldpName: [] };
  const lldp: LldpSession = { neighbours: () => new Map(), waitForSwitches: async () => new Map([["eth0", [neigh("leaf01", "0c:00:00:00:00:01"), neigh("leaf02", "0c:00:00:00:00:02")]]]), close: async () => {} };
  const s: Services = {
    log,
    secrets: new SecretSet(),
    http: new HttpClient({ caBundle: st.bootCa.certFile, allowHttp: false, log }),
    sysRoot: join(dir, "no-sysfs"),
    tokenFile: join(run, "token"),
    handoffFile: join(run, "handoff.json"),
    resolvConf: join(run, "resolv.conf"),
    readFile: async (p) => new Uint8Array(await Bun.file(p).arrayBuffer()),
    env: {},
    exec: () => {
      throw new Error("no exec in this test");
    },
    selectNics: () => [{ name: "eth0", ifindex: 2, mac: "52:54:00:12:34:56" }],
    startLldp: (_i, name) => (seen.lldpName.push(name), lldp),
    bringUp: async () => (seen.bringUp++, { summary: NET, linkUpAt: 0, readyAt: 0, ready: ["eth0"], startup: { entered: 0, subscribed: 0, selected: 0, sysctls: 0 } }),
    inventory: async (net) => (seen.inventoryNet.push(net), toInventory({ memTotalBytes: 1 << 30, cpuinfo: "", nets: [{ name: "eth0", address: "52:54:00:12:34:56", type: "1", speed: undefined, devicePath: undefined, vendorId: undefined, deviceId: undefined, driver: undefined }], blocks: [], pci: [], dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined } }, net)),
    now: () => new Date("2026-01-01T00:00:00Z"),
    ...over,
  };
  return { s, lines, seen };
}

const config = (extra = "") => configFromCmdline(`METAL_BOOT_URL=${st.urls.boot}/ METAL_CA=${st.bootCa.certFile} METAL_UUID=${UUID} METAL_WAIT_TIMEOUT=5s ${extra}`);
const flow = async (from: StartStage, s: Services, extra = "") => {
  try {
    await runFlow(config(extra), s, from);
    return undefined;
  } catch (e) {
    return toAgentError(e);
  } finally {
    await s.http.close();
  }
};

describe.skipIf(skip !== undefined)(`runFlow${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("from the network: every stage in order, each fed by the earlier ones, to install (not built, exit 3)", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines, seen } = services(run);
    const e = await flow("network", s);
    expect(e?.exitCode).toBe(3);
    expect(lines.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["network", "boot", "api", "image", "handoff", "register", "wait", "install"]);
    expect(seen.bringUp).toBe(1);
    // The inventory got the network stage's summary; LLDP announced the machine uuid; Register carried both switches.
    expect(seen.inventoryNet).toEqual([NET]);
    expect(seen.lldpName).toEqual([UUID]);
    const reg = st.machines.registered.get(UUID) as { hardware: { nics: { name: string; neighbors: { hostname: string }[] }[] } };
    expect(reg.hardware.nics[0]?.neighbors.map((n) => n.hostname)).toEqual(["leaf01", "leaf02"]);
    expect(existsSync(join(run, "handoff.json"))).toBe(true);
  });

  test("--from register and --from wait resume from handoff.json and the token file", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    expect((await flow("boot", services(run).s))?.exitCode).toBe(3);
    st.machines.reset();
    st.machines.allocate(UUID, { uuid: UUID, hostname: "w2" });
    const r = services(run);
    expect((await flow("register", r.s))?.exitCode).toBe(3);
    expect(r.lines.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["register", "wait", "install"]);
    expect(st.machines.registered.has(UUID)).toBe(true);
    const w = services(run);
    st.calls.length = 0;
    expect((await flow("wait", w.s))?.exitCode).toBe(3);
    // Only the Waiting event (refused: events are INFRA only) and Wait: no Version, no Register.
    expect(st.calls.map((c) => `${c.procedure} ${c.refused ?? "ok"}`)).toEqual(["metalstack.infra.v2.EventService/Send permission_denied", "metalstack.infra.v2.BootService/Wait ok"]);
  });

  test("--from register without an earlier run: a usage error (exit 2) naming the file", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const e = await flow("register", services(run).s);
    expect(e?.exitCode).toBe(2);
    expect(e?.message).toContain(`run --from register resumes from ${join(run, "handoff.json")}, which cannot be read`);
  });

  test("LLDP that cannot start is one warn line; the strict apiserver then refuses Register naming what LLDP saw (exit 25)", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines } = services(run, {
      startLldp: () => {
        throw new Error("no AF_PACKET");
      },
    });
    const e = await flow("boot", s);
    expect(e?.exitCode).toBe(25);
    expect(e?.message).toBe("apiserver refused Register: machine is not connected to exactly two switches (LLDP saw: no switch)");
    expect(lines.filter((l) => l.event === "lldp.start").map((l) => l.level)).toEqual([40]);
  });

  test("a METAL_PARTITION that differs from metal-boot's: one warning, Register uses metal-boot's", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines } = services(run);
    await flow("boot", s, "METAL_PARTITION=other-part");
    expect(lines.filter((l) => l.event === "agent.config.warning").map((l) => l.msg)).toEqual(["METAL_PARTITION=other-part on the cmdline differs from metal-boot's partition fra-equ01: registering with fra-equ01"]);
    expect((st.machines.registered.get(UUID) as { partition: string }).partition).toBe("fra-equ01");
  });
});
