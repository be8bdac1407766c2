/**
 * The built-in provisioning flow against the stand-ins over IPv6 (root only): the
 * agent in a netns runs `run --from boot` with METAL_HANDOFF=builtin, registers its
 * hardware, waits for an allocation (BootService/Wait), and ends at the layout step:
 * the allocations here have no filesystemLayout (layout_refused, exit 61; the driver
 * never touches the host's disks). Also: a Wait stream cut mid-way is reopened; no
 * allocation within METAL_WAIT_TIMEOUT ends with wait_timeout (26); a token that expires
 * during the Wait is renewed from metal-boot and the same Wait goes on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Standins } from "../../../lab/standins/standins.ts";
import { runAgent, twoSwitches } from "../api/agent.ts";
import { canRunNetns, createHostLink, type HostLink } from "../../helpers/netns.ts";
import { expectNothingLeaked, standinsOn } from "../api/suite.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3133";
const CONSOLE_PASSWORD = "mhp-console-secret-7f3a9c";
const skip = canRunNetns();
// Named in the run; fails under CI=true when something is missing.
prerequisites("the built-in provisioning suite", [skip]);

let link: HostLink;
let st: Standins;
let dir: string;
let machineMac: string;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "mhp-prov-"));
  link = await createHostLink("mhp");
  machineMac = JSON.parse(Bun.spawnSync(["ip", "-n", link.ns, "-j", "link", "show", link.machineIf], { stdout: "pipe" }).stdout.toString())[0].address;
  st = await standinsOn(link, dir, [{ uuid: UUID, partition: "fra-equ01" }]);
});

afterAll(async () => {
  if (skip) return;
  try {
    // Neither a token nor the allocation's console password appears in anything printed or logged.
    expectNothingLeaked(st, dir, [CONSOLE_PASSWORD]);
  } finally {
    await st?.stop();
    await link?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

beforeEach(() => {
  if (skip) return;
  for (const f of Object.values(st.faults)) f.clear();
  st.machines.reset();
  st.calls.length = 0;
  st.log.entries.length = 0;
});

const cmdline = (extra = "") => `console=ttyS0 METAL_BOOT_URL=${st.urls.boot}/ METAL_CA=${st.bootCa.certFile} METAL_UUID=${UUID} METAL_HANDOFF=builtin ${extra}`.trim();
const runBuiltin = (extra = "", timeoutMs = 60_000) =>
  runAgent(link.ns, ["run", "--from", "boot", "--run-dir", mkdtempSync(join(dir, "run-")), "--cmdline", cmdline(extra)], { timeoutMs, lldp: twoSwitches(link.machineIf) });
const events = (logs: Record<string, unknown>[], name: string) => logs.filter((l) => l.event === name);
const waitCalls = () => st.calls.filter((c) => c.procedure.endsWith("/Wait")).length;
const waiting = () => waitFor(() => [...st.machines.open].some((w) => w.uuid === UUID), 30_000, `an open Wait stream of ${UUID} at the apiserver stand-in`);

const ALLOCATION = {
  uuid: UUID,
  hostname: "worker-1",
  project: "p-1",
  image: { id: "debian-12.0.20251101", url: "https://images.example/metal-os/debian/12/img.tar.lz4" },
  consolePassword: CONSOLE_PASSWORD,
  userdata: `#cloud-config\nchpasswd: ${CONSOLE_PASSWORD}\n`,
};

describe.skipIf(skip !== undefined)(`built-in provisioning flow over IPv6 in a netns${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("registers the hardware, waits for the allocation, logs it redacted, and stops at the layout step (no layout: exit 61)", async () => {
    const agent = runBuiltin();
    await waiting();
    // Registered before waiting: the machine's uuid and a plausible hardware.
    const reg = st.machines.registered.get(UUID) as {
      uuid: string;
      partition: string;
      metalHammerVersion: string;
      bios: unknown;
      hardware: { memory: string; nics: { mac: string; name: string; neighbors?: { hostname: string }[] }[]; cpus: { cores: number }[] };
    };
    expect(reg.bios).toBeDefined();
    expect(reg.hardware.nics.find((n) => n.name === link.machineIf)?.neighbors?.map((x) => x.hostname)).toEqual(["leaf01", "leaf02"]);
    expect(reg).toMatchObject({ uuid: UUID, partition: "fra-equ01" });
    expect(reg.metalHammerVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(Number(reg.hardware.memory)).toBeGreaterThan(0);
    expect(reg.hardware.nics).toContainEqual(expect.objectContaining({ mac: machineMac, name: link.machineIf }));
    expect(reg.hardware.cpus.length).toBeGreaterThan(0);
    expect(reg.hardware.cpus[0]?.cores).toBeGreaterThan(0);

    st.machines.allocate(UUID, ALLOCATION);
    const r = await agent;
    expect(r.code).toBe(61);
    expect(r.err).toContain(`metal-hammer: the allocation of ${UUID} has no filesystemLayout: nothing to partition, nothing installed`);
    // The order of the calls: Version (public), one event by its full enum name (refused: Send is INFRA only, so events stop), Register, Wait.
    const sent = st.calls.map((c) =>
      c.procedure.endsWith("/Send") ? Object.values((c.request as { events: Record<string, { event: string }> }).events)[0]?.event : c.procedure.split("/")[1],
    );
    expect(sent).toEqual(["Get", "MACHINE_PROVISIONING_EVENT_TYPE_PREPARING", "Register", "Wait"]);
    expect(events(r.logs, "provision.event.off")).toHaveLength(1);
    // The log says what it waits for, then shows the allocation with secrets redacted.
    const w = events(r.logs, "provision.wait")[0];
    expect(w?.msg).toBe(`waiting for an allocation of ${UUID} (metalstack.infra.v2.BootService/Wait, up to 24h)`);
    const a = events(r.logs, "provision.allocation")[0];
    expect(a).toMatchObject({ hostname: "worker-1", project: "p-1", image: "debian-12.0.20251101", reconnects: 0 });
    // consolePassword is not a MachineAllocation field: dropped when decoded, never shown.
    expect(a?.allocation).toMatchObject({ hostname: "worker-1" });
    expect(String((a?.allocation as Record<string, unknown>).userdata)).toMatch(/^\[redacted\] \(\d+ chars\)$/);
    expect(r.logs.map((l) => l.event).filter((e) => /^(provision|lldp)\./.test(String(e)))).toEqual([
      "lldp.start",
      "provision.event.off",
      "lldp.wait",
      "lldp.neighbours",
      "provision.inventory",
      "provision.register",
      "provision.wait",
      "provision.allocation",
    ]);
  });

  test("already allocated: Wait answers at once", async () => {
    st.machines.allocate(UUID, { uuid: UUID, hostname: "early" });
    const r = await runBuiltin();
    expect(r.code).toBe(61);
    expect(events(r.logs, "provision.allocation")[0]).toMatchObject({ hostname: "early", reconnects: 0 });
    expect(waitCalls()).toBe(1);
  });

  test("a Wait stream cut mid-way is reopened (one warn line), then the allocation arrives", async () => {
    // Keepalives make the stand-in send the answer's headers at once: the cut comes while the answer streams.
    st.machines.keepaliveMs = 100;
    const agent = runBuiltin();
    await waitFor(() => [...st.machines.open].some((w) => w.uuid === UUID && w.sent >= 3), 30_000, "three keepalives on the open Wait stream");
    expect(st.machines.breakWaits()).toBe(1);
    await waitFor(() => waitCalls() === 2 && st.machines.open.size === 1, 30_000, "the agent to reopen the Wait stream");
    st.machines.allocate(UUID, { uuid: UUID, hostname: "after-break" });
    const r = await agent;
    expect(r.code).toBe(61);
    const rec = events(r.logs, "provision.wait.reconnect");
    expect(rec.length).toBe(1);
    expect(rec[0]).toMatchObject({ level: 40, reconnect: 1 });
    expect(String(rec[0]?.msg)).toMatch(
      /^metalstack\.infra\.v2\.BootService\/Wait: apiserver metalstack\.infra\.v2\.BootService\/Wait \(stream\) \(https:\/\/\[[0-9a-f:]+\]:\d+\): the connection broke while the answer streamed: .+; reconnect 1 in \d+ ms$/,
    );
    expect(events(r.logs, "provision.allocation")[0]).toMatchObject({ hostname: "after-break", reconnects: 1 });
  });

  test("a token that expires during Wait is renewed from metal-boot and the same Wait goes on to the allocation", async () => {
    // Lives long enough for Register; the Wait reconnects after it expired (the apiserver checks a token when a call opens).
    st.metalBoot.tokenTtlS = 6;
    st.machines.keepaliveMs = 100;
    const run = mkdtempSync(join(dir, "run-"));
    try {
      const agent = runAgent(link.ns, ["run", "--from", "boot", "--run-dir", run, "--cmdline", cmdline()], { timeoutMs: 60_000, lldp: twoSwitches(link.machineIf) });
      await waitFor(() => [...st.machines.open].some((w) => w.uuid === UUID && w.sent >= 1), 30_000, "an open Wait stream of the machine");
      const first = st.tokens.issued.filter((t) => st.tokens.verify(t) === UUID).at(-1) ?? "";
      st.metalBoot.tokenTtlS = 600;
      await waitFor(() => st.tokens.expired(first), 15_000, "the machine token's exp");
      expect(st.machines.breakWaits()).toBe(1);
      await waitFor(() => waitCalls() >= 3 && [...st.machines.open].some((w) => w.uuid === UUID), 30_000, "the Wait reopened with a renewed token");
      st.machines.allocate(UUID, { uuid: UUID, hostname: "after-renewal" });
      const r = await agent;
      expect(r.code).toBe(61);
      expect(st.calls.filter((c) => c.procedure.endsWith("/Wait")).map((c) => c.refused ?? "ok")).toEqual(["ok", "unauthenticated", "ok"]);
      expect(st.log.of("boot").filter((e) => e.path === `/config/${UUID}`)).toHaveLength(2);
      // The start warned that the token dies before the wait's bound (24h); the renewal names both expiries, never a token.
      expect(events(r.logs, "boot.token.lifetime")[0]).toMatchObject({ level: 40, tokenExpiresAt: expect.any(String), endsBy: "METAL_WAIT_TIMEOUT=24h" });
      const renewed = events(r.logs, "boot.token.renewed");
      expect(renewed).toHaveLength(1);
      expect(renewed[0]).toMatchObject({ level: 40, renewals: 1, previousExpiresAt: events(r.logs, "boot.config")[0]?.tokenExpiresAt });
      // The same Wait: one start line, the break its one reconnect, the allocation through it.
      expect(events(r.logs, "provision.wait")).toHaveLength(1);
      expect(events(r.logs, "provision.allocation")[0]).toMatchObject({ hostname: "after-renewal", reconnects: 1 });
      const status = JSON.parse(readFileSync(join(run, "status.json"), "utf8")) as { token: { expiresAt: string; renewals: number } };
      expect(status.token).toMatchObject({ kind: "jwt", renewals: 1, expiresAt: renewed[0]?.tokenExpiresAt });
      expect(readFileSync(join(run, "token"), "utf8")).not.toBe(first);
    } finally {
      st.metalBoot.tokenTtlS = undefined;
    }
  }, 60_000);

  test("a Wait that ends with unavailable is reopened", async () => {
    st.faults.api.set({ streamError: "unavailable" });
    const agent = runBuiltin();
    await waitFor(() => waitCalls() >= 2, 30_000, "a second Wait call");
    st.faults.api.clear();
    await waiting();
    st.machines.allocate(UUID, { uuid: UUID, hostname: "after-unavailable" });
    const r = await agent;
    expect(r.code).toBe(61);
    expect(String(events(r.logs, "provision.wait.reconnect")[0]?.reason)).toContain("unavailable: stand-in fault");
  });

  test("no allocation within METAL_WAIT_TIMEOUT: wait_timeout (exit 26) saying so, keepalives do not count", async () => {
    st.machines.keepaliveMs = 200;
    const r = await runBuiltin("METAL_WAIT_TIMEOUT=2s DEBUG=1");
    expect(r.code).toBe(26);
    expect(r.err).toContain(
      `metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=2s (metalstack.infra.v2.BootService/Wait, 0 reconnect(s)); the machine is registered but not allocated`,
    );
    expect(events(r.logs, "provision.wait.keepalive").length).toBeGreaterThanOrEqual(3);
    expect(events(r.logs, "provision.wait.timeout")[0]).toMatchObject({ timeoutMs: 2000, reconnects: 0 });
    // Bounded: the wait took about 2 s, not more.
    const w = events(r.logs, "provision.wait")[0];
    const t = events(r.logs, "provision.wait.timeout")[0];
    const waited = Date.parse(String(t?.time)) - Date.parse(String(w?.time));
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(waited).toBeLessThan(4_000);
  });

  test("a malformed METAL_WAIT_TIMEOUT is a usage error (exit 2) naming it", async () => {
    const r = await runBuiltin("METAL_WAIT_TIMEOUT=soon");
    expect(r.code).toBe(2);
    expect(r.err).toContain('METAL_WAIT_TIMEOUT="soon": expected a duration like 90s or 2m');
  });
});
