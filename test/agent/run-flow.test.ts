/**
 * The flow with its services built by the test (the composition root's job): a fake
 * bring-up and LLDP session, the hardware from facts, fake disks, installer and kexec
 * system calls that record what they were given, the real Operations (no watchdog
 * device) and the strict stand-ins on loopback. Each stage gets the typed results of
 * the earlier ones; `from` starts later stages from what the earlier ones wrote.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { configFromCmdline, type Config } from "../../src/config/config.ts";
import { toAgentError } from "../../src/platform/errors.ts";
import type { StageName } from "../../src/config/stages.ts";
import { datedCert } from "../helpers/dated-cert.ts";
import { FilesystemLayoutSchema, type FilesystemLayout } from "../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { MachineNicSchema } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { runFlow } from "../../src/agent/run-flow.ts";
import { decideStart, type StartStage } from "../../src/agent/flow-start.ts";
import type { Services } from "../../src/agent/services.ts";
import { HttpClient } from "../../src/clients/http/http-client.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { Operations } from "../../src/ops/operations/operations.ts";
import type { Standins } from "../../lab/standins/standins.ts";
import { loopbackStandins, resetStandins, standinsSkip } from "../integration/api/suite.ts";
import { BMC_PASSWORD, BOOT_INFO, flowServices, NET, PASSWORD, RecordingOps, WIPE_BOUND_MS } from "./flow-fakes.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3160";
const skip = standinsSkip();
let st: Standins;
let dir: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  if (skip) return;
  ({ st, dir, stop } = await loopbackStandins("mh-flow-", [{ uuid: UUID, partition: "fra-equ01" }]));
  // metal-boot hands out two NTP servers (ntp_servers); the test's clock answers from the first.
  st.metalBoot.ntpServers = ["fd00:123::1", "ntp.example"];
});
afterAll(async () => {
  if (!skip) await stop();
});
beforeEach(() => {
  if (skip) return;
  resetStandins(st);
  st.machines.superUserPassword = SUPER_PASSWORD;
  st.machines.allocate(UUID, ALLOCATION);
});

const IMAGE_URL = "https://images.metal-stack.io/metal-os/stable/debian/12/img.tar.lz4";
const LAYOUT = { id: "c1-large-x86", filesystems: [{ device: "/dev/sda2", format: "FORMAT_EXT4", path: "/", mountOptions: ["noatime"] }] };
const ALLOCATION = { uuid: UUID, hostname: "w1", image: { id: "debian-12", url: IMAGE_URL }, filesystemLayout: LAYOUT };

/** The flow's services: the shared part and each stage's own fake slice (flow-fakes.ts). */
const services = (run: string, over: Partial<Services> = {}) => flowServices(run, st.bootCa.certFile, join(dir, "no-sysfs"), over);

const SUPER_PASSWORD = "Super9user3pw";
const FULL: StageName[] = ["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait", "layout", "install", "installed", "kexec"];

const config = (extra = "") => configFromCmdline(`METAL_BOOT_URL=${st.urls.boot}/ METAL_CA=${st.bootCa.certFile} METAL_UUID=${UUID} METAL_WAIT_TIMEOUT=5s ${extra}`);
const flow = async (from: StartStage, s: Services, extra: string | Config = "") => {
  try {
    await runFlow(typeof extra === "string" ? config(extra) : extra, s, decideStart(from));
    return undefined;
  } catch (e) {
    return toAgentError(e);
  } finally {
    await s.http.close();
  }
};

const stages = (lines: Record<string, unknown>[]) => lines.filter((l) => l.event === "agent.stage").map((l) => l.stage);

describe.skipIf(skip !== undefined)(`runFlow${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("from the network: every stage in order, each fed by the earlier ones, to kexec into the installed OS", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines, raw, seen, ops } = services(run);
    const e = await flow("network", s, "console=ttyS1,115200n8 METAL_WIPE=overwrite METAL_NICS=eth0");
    expect(e).toBeUndefined();
    expect(stages(lines)).toEqual(FULL);
    // Operations.stage at the start of every stage (watchdog pet, status.json's stage).
    expect(ops.stages).toEqual(FULL);
    // The wipe holds the watchdog for the disks' own bound (an overwrite of a large disk runs for hours), not a fixed 2 h.
    expect(ops.holds.filter((h) => h.stage === "wipe").map((h) => h.ms)).toEqual([WIPE_BOUND_MS]);
    // The configuration reaches the services through the stages: METAL_WIPE to the disks (bound and wipe), METAL_NICS to LLDP's selection.
    expect(seen.wipeModes).toEqual(["bound overwrite", "wipe overwrite"]);
    expect(seen.nicSelectors).toEqual([[{ kind: "name", name: "eth0" }]]);
    // status.json's clock is the re-sync's (the boot stage's clock fact), not the skipped clock stage's.
    expect(JSON.parse(readFileSync(join(run, "status.json"), "utf8"))).toMatchObject({ stage: "kexec", clock: { decision: "keep", server: "[fd00:123::1]:123" } });
    // No METAL_NTP_SERVERS: the clock stage skips; metal-boot's ntp_servers then set it (the first answers).
    expect(lines.filter((l) => l.event === "clock.skip")).toHaveLength(1);
    expect([...new Set(ops.asked)]).toEqual(["fd00:123::1", "ntp.example"]);
    expect(seen.bringUp).toBe(1);
    // The inventory got the network stage's summary; LLDP announced the machine uuid; Register carried both switches.
    expect(seen.inventoryNet).toEqual([NET]);
    expect(seen.lldpName).toEqual([UUID]);
    const reg = st.machines.registered.get(UUID) as { hardware: { nics: { name: string; neighbors: { hostname: string }[] }[] } };
    expect(reg.hardware.nics[0]?.neighbors.map((n) => n.hostname)).toEqual(["leaf01", "leaf02"]);
    // Register carried the BMC with the metal user's password and the FRU; the superuser got SuperUserPassword's password; neither is logged.
    expect((reg as unknown as { bmc: unknown; fru: unknown }).bmc).toEqual({
      address: "192.0.2.10:623",
      mac: "52:54:00:ab:cd:ef",
      user: "metal",
      password: BMC_PASSWORD,
      interface: "lanplus",
      version: "1.02",
    });
    expect((reg as unknown as { fru: unknown }).fru).toEqual({ productSerial: "PRD-SN-1" });
    expect(seen.superUser).toEqual([`root:${SUPER_PASSWORD}`]);
    // What it waits for is said first, with the bound of each call.
    const at = (event: string) => lines.findIndex((l) => l.event === event);
    expect(lines[at("bmc.start")]).toMatchObject({ timeoutMsPerCall: 15_000 });
    expect(at("bmc.start")).toBeLessThan(at("bmc.read"));
    expect(raw.join("")).not.toContain(BMC_PASSWORD);
    expect(raw.join("")).not.toContain(SUPER_PASSWORD);
    expect(existsSync(join(run, "handoff.json"))).toBe(true);
    // The layout got the allocation's FilesystemLayout as decoded (the generated message); the installer the target, the image through the cache, the NICs with their neighbours.
    expect(seen.layouts).toEqual([fromJson(FilesystemLayoutSchema, LAYOUT)]);
    const i = seen.install[0]!;
    expect(i.imageUrl.href).toBe(`${st.urls.images}/metal-os/stable/debian/12/img.tar.lz4`);
    expect(i).toMatchObject({
      root: join(run, "target"),
      machineId: UUID,
      console: "ttyS1,115200n8",
      rootUuid: "0a1b2c3d-0000-4000-8000-00000000f00d",
      raidEnabled: false,
      allocation: { uuid: UUID, hostname: "w1", filesystemLayout: { id: "c1-large-x86" } },
      // UEFI as the stages' sysfs root shows it (--sysfs), not the host's /sys.
      efiDir: join(dir, "no-sysfs", "firmware/efi"),
    });
    expect(i.nics.map((n) => [n.name, n.neighbors.map((x) => x.hostname)])).toEqual([["eth0", ["leaf01", "leaf02"]]]);
    // They are the MachineNic messages Register sent, field for field (as the apiserver received them).
    expect(i.nics.map((n) => toJson(MachineNicSchema, n))).toEqual((st.machines.registered.get(UUID) as { hardware: { nics: JsonValue[] } }).hardware.nics);
    // machine-allocation.yaml gets the allocation as the stand-in's Wait sent it (its JSON, not a re-encoding).
    expect(i.allocationAsSent).toMatchObject({ uuid: UUID, hostname: "w1", filesystemLayout: { id: "c1-large-x86" } });
    // InstallationSucceeded reached the strict apiserver with the installer's password (its machine token, its uuid); the password is in no log line.
    expect(st.machines.installed.get(UUID)).toBe(PASSWORD);
    expect(st.calls.filter((c) => c.procedure.endsWith("/InstallationSucceeded")).map((c) => c.refused ?? "ok")).toEqual(["ok"]);
    expect(raw.join("")).not.toContain(PASSWORD);
    // Wipe before the wait; fstab after the installer; kexec after the report: load, unmount, sync,
    // then the watchdog closed (beforeReboot: only once the kernel is loaded; on main it was closed before the open), reboot(KEXEC).
    expect(seen.sys).toEqual([
      "wipe",
      "fstab",
      `open ${join(run, "target", "boot/vmlinuz")}`,
      `open ${join(run, "target", "boot/initrd.img")}`,
      `kexec_file_load ${BOOT_INFO.cmdline}`,
      "unmount",
      "sync",
      "before-reboot kexec",
      "drain",
      "reboot KEXEC",
    ]);
    expect(lines.filter((l) => l.event === "provision.installed")).toHaveLength(1);
  });

  test("a metal BMC user from an earlier boot that cannot be written now: not registered (exit 27), the stored BMC record intact; one never there registers without credentials", async () => {
    const registers = () => st.calls.filter((c) => c.procedure.endsWith("/Register")).length;
    expect(await flow("boot", services(mkdtempSync(join(dir, "run-"))).s)).toBeUndefined();
    const stored = st.machines.bmc.get(UUID);
    expect(stored).toMatchObject({ address: "192.0.2.10:623", user: "metal", password: BMC_PASSWORD });
    const failing = (before: "present" | "absent"): Partial<Services> => ({
      bmc: {
        discover: async () => ({
          present: true,
          lan: { ip: "192.0.2.10", mac: "52:54:00:ab:cd:ef", notes: [] },
          firmwareRevision: "1.02",
          fru: { productSerial: "PRD-SN-1" },
          vendor: "Supermicro",
          metalUserBefore: before,
          notes: ["ipmitool -I open user set name 10 metal: exit 1: Insufficient privilege level"],
        }),
        superUser: async () => ({ ok: true, notes: [] }),
      },
    });
    const again = services(mkdtempSync(join(dir, "run-")), failing("present"));
    const e = await flow("boot", again.s);
    expect([e?.code, e?.exitCode]).toEqual(["bmc_backwards", 27]);
    expect(e?.message).toStartWith(`metalstack.infra.v2.BootService/Register not called for ${UUID}: the metal BMC user is on the BMC from an earlier boot`);
    expect(registers()).toBe(1);
    expect(st.machines.bmc.get(UUID)).toEqual(stored);

    // A machine the apiserver holds no credentials for (never had the metal user): registered with the BMC's address, no credentials.
    st.machines.reset();
    st.machines.allocate(UUID, ALLOCATION);
    expect(await flow("boot", services(mkdtempSync(join(dir, "run-")), failing("absent")).s)).toBeUndefined();
    expect(st.machines.bmc.get(UUID)).toMatchObject({ address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "", password: "" });
  });

  test("InstallationSucceeded refused by the apiserver: an error naming it, and no kexec", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines, seen } = services(run);
    // The machine is freed while it installs: metal-apiserver machine.go InstallationSucceeded refuses a machine without an allocation.
    const real = s.installOs;
    const e = await flow("boot", { ...s, installOs: async (i) => (st.machines.allocations.delete(UUID), real(i)) });
    expect(e?.message).toBe(
      `apiserver refused metalstack.infra.v2.BootService/InstallationSucceeded for ${UUID} (unknown: the machine "${UUID}" is not allocated): the installed OS is not booted`,
    );
    expect(stages(lines).slice(-2)).toEqual(["install", "installed"]);
    expect(seen.sys.filter((x) => x.startsWith("kexec") || x.startsWith("reboot"))).toEqual([]);
    expect(st.machines.installed.has(UUID)).toBe(false);
  });

  test("an allocation without a filesystem layout is refused before the disks are touched (exit 61); one with md arrays installs with raidEnabled", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { filesystemLayout: _, ...noLayout } = ALLOCATION;
    st.machines.allocate(UUID, noLayout);
    const a = services(run);
    const e = await flow("boot", a.s);
    expect(e?.exitCode).toBe(61);
    expect(e?.message).toBe(`the allocation of ${UUID} has no filesystemLayout: nothing to partition, nothing installed`);
    expect(a.seen.layouts).toEqual([]);
    st.machines.reset();
    const raid = { ...LAYOUT, raid: [{ arrayName: "/dev/md1", devices: ["/dev/sda2", "/dev/sdb2"], level: "RAID_LEVEL_1" }] };
    st.machines.allocate(UUID, { ...ALLOCATION, filesystemLayout: raid });
    const b = services(run);
    expect(await flow("boot", b.s)).toBeUndefined();
    expect(b.seen.layouts).toEqual([fromJson(FilesystemLayoutSchema, raid)]);
    expect(b.seen.install[0]?.raidEnabled).toBe(true);
    // No console= on the cmdline: the manufacturer decides (QEMU: ttyS0, as pixie's boot script); the default METAL_WIPE is fast.
    expect(b.seen.install[0]?.console).toBe("ttyS0");
    expect(b.seen.wipeModes).toEqual(["bound fast", "wipe fast"]);
  });

  test("the planned reboot ends the wait as a reboot, not an error: no layout, reboot(RESTART)", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    st.machines.reset();
    const { s, lines, seen } = services(run);
    const t0 = performance.now();
    const e = await flow("boot", s, { ...config(), plannedReboot: { boundMs: 300, jitterMs: 0 } });
    expect(e).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(4_000); // well before METAL_WAIT_TIMEOUT=5s
    expect(stages(lines).slice(-2)).toEqual(["wipe", "wait"]);
    const planned = lines.filter((l) => l.event === "reboot.planned");
    expect(planned.map((l) => l.due ?? false)).toEqual([false, true]);
    // The due line names the time it was planned for (the one logged when the wait started) and why.
    expect(planned[1]).toMatchObject({ at: planned[0]!.at, reason: expect.stringContaining("no allocation came before the planned reboot"), sent: false });
    expect(seen.sys).toEqual(["wipe", "before-reboot planned reboot", "drain", "sync", "reboot RESTART"]);
    expect(lines.some((l) => l.event === "agent.fatal")).toBe(false);
    // reboot(2) refused (EPERM): the one way the planned reboot is an error, exit 56 naming it.
    const refused = services(mkdtempSync(join(dir, "run-")));
    const e2 = await flow("boot", { ...refused.s, kexecSys: { ...refused.s.kexecSys, reboot: () => 1 } }, { ...config(), plannedReboot: { boundMs: 300, jitterMs: 0 } });
    expect(e2?.exitCode).toBe(56);
    expect(e2?.message).toBe("planned reboot: reboot(2) failed: EPERM");
  });

  test("a TLS certificate that has expired: the error names the machine's clock and METAL_NTP_SERVERS", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const pki = mkdtempSync(join(dir, "expired-"));
    // Expired on 2020-01-02.
    const cert = datedCert(pki, "s.pem", "20200101000000Z", "20200102000000Z");
    const server = Bun.serve({ hostname: "::1", port: 0, tls: { cert: cert.cert, key: cert.key }, fetch: () => new Response("{}") });
    try {
      const { s } = services(run, {
        http: new HttpClient({ caBundle: cert.caFile, allowHttp: false, log: createLogger({ level: "silent", format: "json", write: () => {}, secrets: new SecretSet() }) }),
      });
      const e = await flow("boot", s, configFromCmdline(`METAL_BOOT_URL=https://[::1]:${server.port}/ METAL_CA=${cert.caFile} METAL_UUID=${UUID}`));
      expect(e?.code).toBe("tls");
      expect(e?.message).toContain("CERT_HAS_EXPIRED");
      expect(e?.message).toContain("No NTP server is configured: set METAL_NTP_SERVERS=");
      expect(e?.details.clockTls).toBe("expired");
    } finally {
      await server.stop(true);
    }
  });

  test("an oci:// image: installed from the registry with metal-boot's oci_configs, not through the image cache; the password in no line", async () => {
    const ref = "oci://registry.example.com:5000/metal-stack/debian:12";
    const pw = "oci-flow-password-31b7";
    st.machines.reset();
    st.machines.allocate(UUID, { ...ALLOCATION, image: { id: "debian-12-oci", url: ref } });
    st.metalBoot.ociConfigs = { "https://registry.example.com:5000": { username: "puller", password: pw } };
    try {
      const run = mkdtempSync(join(dir, "run-"));
      const r = services(run);
      expect(await flow("boot", r.s)).toBeUndefined();
      const i = r.seen.install[0]!;
      expect(i.oci).toEqual({ reference: ref, configs: { "https://registry.example.com:5000": { username: "puller", password: pw } }, mirror: new URL(`${st.urls.images}/`) });
      expect(i.imageUrl.href).toBe(ref);
      expect(r.lines.find((l) => l.event === "boot.config")?.ociRegistries).toEqual(["https://registry.example.com:5000"]);
      expect(r.raw.join("")).not.toContain(pw);
    } finally {
      st.metalBoot.ociConfigs = undefined;
      st.machines.reset();
      st.machines.allocate(UUID, ALLOCATION);
    }
  });

  test("--from register and --from wait resume from handoff.json and the token file", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    expect(await flow("boot", services(run).s)).toBeUndefined();
    st.machines.reset();
    st.machines.allocate(UUID, { ...ALLOCATION, hostname: "w2" });
    const r = services(run);
    expect(await flow("register", r.s)).toBeUndefined();
    expect(stages(r.lines)).toEqual(FULL.slice(FULL.indexOf("register")));
    expect(st.machines.registered.has(UUID)).toBe(true);
    const w = services(run);
    st.calls.length = 0;
    expect(await flow("wait", w.s)).toBeUndefined();
    expect(stages(w.lines)).toEqual(["wipe", ...FULL.slice(FULL.indexOf("wait"))]);
    // Only the Waiting event (refused: events are INFRA only), Wait and InstallationSucceeded: no Version, no Register.
    expect(st.calls.map((c) => `${c.procedure} ${c.refused ?? "ok"}`)).toEqual([
      "metalstack.infra.v2.EventService/Send permission_denied",
      "metalstack.infra.v2.BootService/Wait ok",
      "metalstack.infra.v2.BootService/InstallationSucceeded ok",
    ]);
    // Resumed at wait, the installer still gets the NICs (without neighbours: Register sent them in the earlier run).
    expect(w.seen.install[0]?.nics.map((n) => [n.name, n.neighbors.length])).toEqual([["eth0", 0]]);
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
    expect(lines.filter((l) => l.event === "agent.config.warning").map((l) => l.msg)).toEqual([
      "METAL_PARTITION=other-part on the cmdline differs from metal-boot's partition fra-equ01: registering with fra-equ01",
    ]);
    expect((st.machines.registered.get(UUID) as { partition: string }).partition).toBe("fra-equ01");
  });

  test("METAL_DEBUG_HANG reaches the stage it names from the config: the agent hangs there (a recorder here) and nowhere else", async () => {
    const run = mkdtempSync(join(dir, "run-"));
    const { s, lines } = services(run);
    const hung: string[] = [];
    const ops = new RecordingOps({ secrets: s.secrets, statusPath: join(run, "status.json"), hang: () => void hung.push("hang"), hangFlushMs: 50 });
    expect(await flow("boot", { ...s, ops }, "METAL_DEBUG_HANG=image")).toBeUndefined();
    expect(hung).toEqual(["hang"]);
    expect(lines.filter((l) => l.debugHang === true).map((l) => l.stage)).toEqual(["image"]);
  });
});
