/**
 * The whole MEP-20 boot chain in QEMU (root, TCG): installation ISO -> ISOLINUX ->
 * Debian's iPXE -> SLAAC from radvd -> boot.ipxe from the boot-side metal-boot
 * stand-in (partition by source prefix) -> Debian's bzImage + the partition's initrd
 * over IPv6 -> /init reports back from its own SLAAC address. The initrd is the
 * marker initrd (lab/ipxe/marker/init). Every machine's tap is captured: no DHCP.
 * The same ISO also boots under OVMF (UEFI: its EFI image -> ipxe.efi -> autoexec.ipxe).
 * By name (what make lab runs): the ISO chains metal-boot.chain.lab, which iPXE resolves
 * through the RA's RDNSS, the lab's dnsmasq, whose query log the tests read; under UEFI
 * over https, with the lab's CA as the firmware's HTTPS boot CA.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHAIN_MESSAGES } from "../../ipxe/chain-script.ts";
import {
  BOOT_SERVER_URL,
  CA_IN_INITRD,
  ChainLab,
  chainOrigin,
  DHCP_FILTER,
  LAB_BMC_NET,
  LAB_NAMES,
  STANDINS_ADDR,
  STANDINS_PORT,
  type LabMachine,
  type RunningMachine,
} from "../../lab/chain/chain-lab.ts";
import { LAB_FRU } from "../../lab/bmc/sim.ts";
import { eui64Address } from "../../lab/ipxe/eui64.ts";
import { LAB_INITRD } from "../../lab/base/kernel.ts";
import { type Proc, run } from "../../lab/ipxe/lab-process.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { chunkLines, records as consoleRecords } from "../../lab/base/serial-console.ts";
import { OVMF_CODE, OVMF_VARS } from "../../lab/base/ovmf.ts";
import type { Partition } from "../../lab/ipxe/partitions.ts";
import { installMedia } from "../../lab/standins/install-media.ts";
import { STAGES } from "../../src/config/stages.ts";

const ROOT_DIR = join(import.meta.dir, "../..");
const KERNEL = readdirSync("/boot")
  .filter((f) => f.startsWith("vmlinuz-"))
  .sort()
  .map((f) => `/boot/${f}`)
  .at(-1);
const NEEDS = [
  "/usr/bin/qemu-system-x86_64",
  "/usr/sbin/radvd",
  "/usr/bin/tcpdump",
  "/usr/bin/xorriso",
  "/usr/bin/mcopy",
  "/usr/lib/ipxe/ipxe.lkrn",
  "/usr/lib/ISOLINUX/isolinux.bin",
  "/bin/busybox",
  join(import.meta.dir, "../../build/ipxe-efi/ipxe.efi"),
  OVMF_CODE,
  OVMF_VARS,
  "/usr/bin/ipmi_sim",
  "/usr/bin/ipmitool",
];
const missing = NEEDS.filter((f) => !existsSync(f));
const skipReason =
  process.getuid?.() !== 0 ? "needs root (netns, tap)" : !KERNEL ? "no /boot/vmlinuz-*" : missing.length ? `missing ${missing.join(", ")} (make deps ipxe-efi)` : "";
if (skipReason) console.warn(`chain e2e skipped: ${skipReason}`);

/** The lab's agent initramfs (branch lab: `make initramfs`); its test is skipped until it is built. */
const AGENT_INITRD = join(ROOT_DIR, LAB_INITRD);
const AGENT_UUID = "00000000-6d68-6300-0000-000000000001";
/** What the stand-in's SuperUserPassword hands out in the agent test (at most 16 characters: the lab BMC keeps 16). */
const SUPER_USER_PASSWORD = "Chain7Super3pw";
if (!skipReason && !existsSync(AGENT_INITRD)) console.warn(`chain e2e: the agent-initramfs test is skipped: ${AGENT_INITRD} is missing (make initramfs)`);

/** The agent's JSON log records from a machine's console (lab/base/serial-console.ts: a record the kernel cut in two is joined). */
const records = (console: Proc): Record<string, unknown>[] => consoleRecords(chunkLines(console.chunks, console.chunks[0]?.t ?? 0));

/** Attempts and first delay baked into the test ISO: the failure cases stay short. */
const ATTEMPTS = 3;
const BOOT_TIMEOUT_MS = 150_000;

let work = "";
/** Every lab this file started: afterAll tears down whatever a failed or timed-out test left. */
const labs: ChainLab[] = [];
const newLab = (...args: ConstructorParameters<typeof ChainLab>): ChainLab => {
  const lab = new ChainLab(...args);
  labs.push(lab);
  return lab;
};
let iso = "";
/** The ISOs by name: over http (BIOS and UEFI) and over https (UEFI, the firmware trusts the lab's CA). */
let isoByName = "";
let isoTls = "";
const initrd: Record<string, string> = {};

const partition = (name: string, prefix: string, version: string): Partition => ({
  name,
  prefix,
  kernel: KERNEL as string,
  initrd: initrd[version] as string,
  initrdVersion: version,
  metalBootUrl: BOOT_SERVER_URL,
  cmdline: "console=ttyS0,115200n8 panic=-1",
  extraInitrds: [],
});

/** Console text with the firmware's 80-column wraps undone (iPXE lines wrap mid-word). */
const flat = (m: RunningMachine): string => m.qemu.text().replaceAll("\n", "");

async function awaitExit(m: RunningMachine, ms: number): Promise<number> {
  return await waitFor(() => (m.qemu.exitCode === null ? undefined : { code: m.qemu.exitCode }), ms, `${m.name} to power off or reboot`).then((r) => r.code);
}

describe.skipIf(skipReason !== "")(`boot chain: ISO -> iPXE over IPv6 -> boot.ipxe -> kernel + initrd${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mhc-chain-e2e-"));
    iso = join(work, "lab.iso");
    isoByName = join(work, "lab-name.iso");
    isoTls = join(work, "lab-name-tls.iso");
    for (const [out, url] of [
      [iso, `${BOOT_SERVER_URL}/boot.ipxe`],
      [isoByName, `${chainOrigin({ tls: false })}/boot.ipxe`],
      [isoTls, `${chainOrigin({ tls: true })}/boot.ipxe`],
    ] as const) {
      const env = { ...process.env, BOOT_URL: url, ISO_ATTEMPTS: String(ATTEMPTS), ISO_RETRY_DELAY: "1" };
      const render = Bun.spawnSync([process.execPath, join(ROOT_DIR, "ipxe/render-chain.ts"), `${out}.ipxe`], { env });
      if (render.exitCode !== 0) throw new Error(`render-chain: ${render.stderr.toString()}`);
      await run([join(ROOT_DIR, "ipxe/mkiso.sh"), `${out}.ipxe`, out]);
    }
    for (const v of ["v1", "v2"]) {
      initrd[v] = join(work, `marker-${v}.img`);
      await run([join(ROOT_DIR, "lab/ipxe/mk-marker-initrd.sh"), v, initrd[v] as string]);
    }
  }, 60_000);

  afterAll(async () => {
    for (const lab of labs) await lab.tearDown();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test(
    "two machines on two partitions' prefixes are served different cmdlines and initrds, over SLAAC only, metal-boot by name through the RA's DNS server",
    async () => {
      const machines: LabMachine[] = [
        { name: "a", prefix: "2001:db8:a::/64", mac: "52:54:00:c4:a1:01" },
        { name: "b", prefix: "2001:db8:b::/64", mac: "52:54:00:c4:b2:02" },
      ];
      const parts = [partition("lab-a", "2001:db8:a::/64", "v1"), partition("lab-b", "2001:db8:b::/64", "v2")];
      const lab = newLab({ iso: isoByName, machines, memoryMb: 384, names: { tls: false }, bootServer: { partitions: parts } });
      try {
        await lab.setUp();
        lab.startMachines();
        for (const m of lab.machines) expect(await awaitExit(m, BOOT_TIMEOUT_MS)).toBe(0);
        await lab.stopCaptures();
        const log = lab.requests();
        for (const [i, m] of lab.machines.entries()) {
          const p = parts[i] as Partition;
          const addr = eui64Address(m.prefix, m.mac);
          const mine = log.filter((r) => r.src === addr);
          // In order: boot.ipxe from the VM's SLAAC address, kernel, initrd, then /init's own call.
          expect(mine.map((r) => `${r.status} ${r.path}`)).toEqual([
            "200 /boot.ipxe",
            `200 /p/${p.name}/vmlinuz`,
            `200 /p/${p.name}/initrd-${p.initrdVersion}.img`,
            `200 /lab/report?partition=${p.name}&initrd=${p.initrdVersion}&addr=${addr}`,
          ]);
          expect(mine[0]?.partition).toBe(p.name);
          // By name: iPXE asked the RA's DNS server (the lab's dnsmasq) for metal-boot's AAAA, and fetched by that name.
          expect(lab.dnsQueries().filter((q) => q.from === addr)).toEqual([
            { serial: expect.any(Number), type: "AAAA", name: LAB_NAMES.metalBoot, from: addr, answer: STANDINS_ADDR },
          ]);
          expect(mine.slice(0, 3).map((r) => r.origin)).toEqual(Array(3).fill(`http://${LAB_NAMES.metalBoot}`));
          expect(mine[1]?.bytes).toBe(statSync(p.kernel).size);
          expect(mine[2]?.bytes).toBe(statSync(p.initrd).size);
          const console = m.qemu.text();
          expect(console).toContain(`MHC-MARKER init uptime=`);
          expect(console).toMatch(new RegExp(`MHC-MARKER init uptime=[0-9.]+ partition=${p.name} initrd=${p.initrdVersion}\\n`));
          // The console metal-boot picked by the manufacturer (QEMU: ttyS0, as pixie's boot.ipxe does), then the partition's words.
          expect(console).toContain(`MHC-MARKER cmdline=console=ttyS0,115200n8 METAL_MODE=l3 METAL_BOOT_URL=${BOOT_SERVER_URL} METAL_PARTITION=${p.name} METAL_ALLOW_HTTP=1 `);
          expect(console).toContain(`MHC-MARKER nic=eth0 addr=${addr}\n`);
          expect(flat(m)).toContain(`net0 is ${addr} via router fe80::`);
          expect(flat(m)).toContain(`fetching http://${LAB_NAMES.metalBoot}:8080/boot.ipxe`);
          // Zero DHCPv4/DHCPv6 on the segment; the capture did see the SLAAC exchange (RS 133, RA 134).
          expect(await lab.countPackets(m, DHCP_FILTER)).toBe(0);
          expect(await lab.countPackets(m, "icmp6 and ip6[40] == 133")).toBeGreaterThan(0);
          expect(await lab.countPackets(m, "icmp6 and ip6[40] == 134")).toBeGreaterThan(0);
        }
        // Nobody else asked: every request came from one of the two machines.
        const addrs = lab.machines.map((m) => eui64Address(m.prefix, m.mac));
        expect(log.filter((r) => !addrs.includes(r.src))).toEqual([]);
      } finally {
        await lab.tearDown();
      }
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  test(
    "UEFI: the ISO under OVMF boots its EFI image's iPXE, which runs the chain script from the medium and chains https://metal-boot.chain.lab, trusting the lab's CA from the firmware, to /init over SLAAC only",
    async () => {
      const m0: LabMachine = { name: "uefi", prefix: "2001:db8:c::/64", mac: "52:54:00:c4:c0:07" };
      const p = partition("lab-c", "2001:db8:c::/64", "v2");
      const lab = newLab({ iso: isoTls, machines: [m0], memoryMb: 384, firmware: "uefi", names: { tls: true }, bootServer: { partitions: [p] } });
      try {
        await lab.setUp();
        lab.startMachines();
        const m = lab.machines[0] as RunningMachine;
        expect(await awaitExit(m, BOOT_TIMEOUT_MS)).toBe(0);
        await lab.stopCaptures();
        const addr = eui64Address(m0.prefix, m0.mac);
        const https = `https://${LAB_NAMES.metalBoot}`;
        // Script, kernel and initrd over TLS by name; the marker's report goes to METAL_BOOT_URL (the literal, http).
        expect(lab.requests().map((r) => `${r.status} ${r.origin}${r.path} ${r.src}`)).toEqual([
          `200 ${https}/boot.ipxe ${addr}`,
          `200 ${https}/p/lab-c/vmlinuz ${addr}`,
          `200 ${https}/p/lab-c/initrd-v2.img ${addr}`,
          `200 http://[fd00:b007::1]/lab/report?partition=lab-c&initrd=v2&addr=${addr} ${addr}`,
        ]);
        expect(lab.dnsQueries().map((q) => `${q.type} ${q.name} ${q.from} ${q.answer}`)).toEqual([`AAAA ${LAB_NAMES.metalBoot} ${addr} ${STANDINS_ADDR}`]);
        expect(m.qemu.text()).toContain(`${https}/boot.ipxe... ok`);
        const text = m.qemu.text();
        // UEFI, not SeaBIOS: OVMF's boot manager, then iPXE's EFI build found the script beside it.
        expect(text).toContain("BdsDxe: starting Boot");
        expect(text).not.toContain("SeaBIOS");
        expect(text).toContain("file:autoexec.ipxe... ok");
        expect(flat(m)).toContain(`net0 is ${addr} via router fe80::`);
        expect(text).toMatch(/MHC-MARKER init uptime=[0-9.]+ partition=lab-c initrd=v2\n/);
        // The served initrd's /init is the kernel's PID 1, as the agent is in the real initramfs.
        expect(text).toContain("MHC-MARKER pid=1\n");
        // iPXE's EFI build puts the image name first on the kernel's command line.
        expect(text).toContain(`METAL_MODE=l3 METAL_BOOT_URL=${BOOT_SERVER_URL} METAL_PARTITION=lab-c METAL_ALLOW_HTTP=1 `);
        expect(text).toContain(`MHC-MARKER nic=eth0 addr=${addr}\n`);
        // This VM's own NVRAM: a copy of OVMF's variable store in the lab's dir, written by the firmware.
        const nvram = join(lab.dir, "uefi-OVMF_VARS.fd");
        expect(readFileSync(nvram).equals(readFileSync(OVMF_VARS))).toBe(false);
        expect(await lab.countPackets(m, DHCP_FILTER)).toBe(0);
        expect(await lab.countPackets(m, "icmp6 and ip6[40] == 133")).toBeGreaterThan(0);
      } finally {
        await lab.tearDown();
      }
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  test("metal-boot down: iPXE says so on the console, retries with a growing delay, and gives up after the bound", async () => {
    const m0: LabMachine = { name: "down", prefix: "2001:db8:d::/64", mac: "52:54:00:c4:d0:03" };
    const lab = newLab({ iso, machines: [m0] });
    try {
      await lab.setUp();
      const t0 = Date.now();
      lab.startMachines();
      const m = lab.machines[0] as RunningMachine;
      await awaitExit(m, 60_000);
      const elapsed = Date.now() - t0;
      await lab.stopCaptures();
      const text = flat(m);
      expect(text.split(CHAIN_MESSAGES.failedChain).length - 1).toBe(ATTEMPTS);
      // The namespace answers the SYN with a reset: iPXE says "Connection reset".
      expect(text).toContain("boot.ipxe... Connection reset");
      expect(text).toContain(`${CHAIN_MESSAGES.retrying} 1 s`);
      expect(text).toContain(`${CHAIN_MESSAGES.retrying} 2 s`);
      expect(text).not.toContain(`${CHAIN_MESSAGES.retrying} 3 s`);
      expect(text).toContain(`${CHAIN_MESSAGES.gaveUp} after ${ATTEMPTS} attempts`);
      // Each attempt did get its address: the failure is the chain, not SLAAC.
      expect(text.split(`net0 is ${eui64Address(m0.prefix, m0.mac)}`).length - 1).toBe(ATTEMPTS);
      expect(elapsed).toBeLessThan(60_000);
      expect(lab.requests()).toEqual([]);
      expect(await lab.countPackets(m, DHCP_FILTER)).toBe(0);
    } finally {
      await lab.tearDown();
    }
    // Nothing is left behind: the namespace (and its tap) is gone, every process it started has exited.
    expect(await run(["ip", "netns", "list"])).not.toContain(lab.ns);
    expect(lab.pids().filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  }, 120_000);

  test("no router advertisement: iPXE says it got no IPv6 address, never falls back to DHCP, and gives up after the bound", async () => {
    // Each attempt waits for iPXE's own configuration timeout (~16 s), so this script has 1 attempt
    // (the retry loop is the one the metal-boot-down test runs 3 times; a 2nd attempt here cost ~17 s of suite time).
    const script = join(work, "no-ra.ipxe");
    const env = { ...process.env, BOOT_URL: `${BOOT_SERVER_URL}/boot.ipxe`, ISO_ATTEMPTS: "1", ISO_RETRY_DELAY: "1" };
    expect(Bun.spawnSync([process.execPath, join(ROOT_DIR, "ipxe/render-chain.ts"), script], { env }).exitCode).toBe(0);
    const m0: LabMachine = { name: "no-ra", prefix: "2001:db8:f::/64", mac: "52:54:00:c4:f0:06", ra: false };
    const lab = newLab({
      iso,
      machines: [m0],
      boot: { kind: "lkrn", lkrn: "/usr/lib/ipxe/ipxe.lkrn", script },
      bootServer: { partitions: [partition("lab-a", "2001:db8:a::/64", "v1")] },
    });
    try {
      await lab.setUp();
      lab.startMachines();
      const m = lab.machines[0] as RunningMachine;
      await awaitExit(m, 90_000);
      await lab.stopCaptures();
      const text = flat(m);
      expect(text.split(`${CHAIN_MESSAGES.failedNet} on net0 (no router advertisement`).length - 1).toBe(1);
      expect(text).toContain(`${CHAIN_MESSAGES.gaveUp} after 1 attempts`);
      expect(text).not.toContain(CHAIN_MESSAGES.failedChain);
      expect(lab.requests()).toEqual([]);
      // iPXE solicited (RS) and got nothing; it sent no DHCP instead.
      expect(await lab.countPackets(m, "icmp6 and ip6[40] == 133")).toBeGreaterThan(0);
      expect(await lab.countPackets(m, "icmp6 and ip6[40] == 134")).toBe(0);
      expect(await lab.countPackets(m, DHCP_FILTER)).toBe(0);
    } finally {
      await lab.tearDown();
    }
  }, 120_000);

  test("a machine whose prefix is no partition's is refused by metal-boot and gives up, bounded", async () => {
    const m0: LabMachine = { name: "stranger", prefix: "2001:db8:e::/64", mac: "52:54:00:c4:e0:04" };
    const lab = newLab({ iso, machines: [m0], bootServer: { partitions: [partition("lab-a", "2001:db8:a::/64", "v1")] } });
    try {
      await lab.setUp();
      lab.startMachines();
      const m = lab.machines[0] as RunningMachine;
      await awaitExit(m, 60_000);
      const addr = eui64Address(m0.prefix, m0.mac);
      expect(lab.requests().map((r) => `${r.status} ${r.path} ${r.src}`)).toEqual(Array(ATTEMPTS).fill(`403 /boot.ipxe ${addr}`));
      const text = flat(m);
      // iPXE reports HTTP 403 as "Operation not permitted".
      expect(text).toContain("boot.ipxe... Operation not permitted");
      expect(text).toContain(`${CHAIN_MESSAGES.gaveUp} after ${ATTEMPTS} attempts`);
    } finally {
      await lab.tearDown();
    }
  }, 120_000);

  test.skipIf(!existsSync(AGENT_INITRD))(
    `the metal-hammer initramfs boots through the chain as PID 1, calls the stand-ins from its SLAAC address, and installs the allocated image onto the machine's disk up to the kexec into the installed OS (what make lab runs)${existsSync(AGENT_INITRD) ? "" : ` (skipped: ${AGENT_INITRD} missing, make initramfs)`}`,
    async () => {
      // The machine's disk (sparse 1 GiB) and the test OS image the stand-ins' image cache serves (make lab's install run).
      const { disk, image } = installMedia(join(work, "agent-install"), { kernel: KERNEL as string });
      const m0: LabMachine = { name: "agent", prefix: "2001:db8:a::/64", mac: "52:54:00:c4:a1:05", disks: [disk] };
      const p: Partition = {
        ...partition("lab-a", "2001:db8:a::/64", "v1"),
        initrd: AGENT_INITRD,
        initrdVersion: "agent",
        // No switch in this lab: LLDP is given 1 s (not 30 s) before Register.
        cmdline: `console=ttyS0,115200 panic=-1 METAL_LOG_FORMAT=json METAL_DONE=poweroff METAL_NET_TIMEOUT=30s METAL_LLDP_TIMEOUT=1s METAL_REBOOT_DELAY=1s METAL_UUID=${AGENT_UUID}`,
      };
      const lab = newLab({
        iso: isoByName,
        names: { tls: false },
        machines: [m0],
        memoryMb: 1024,
        bootServer: { partitions: [p] },
        // The stand-in apiserver allocates the machine 300 ms after it registers, as the lab's operator,
        // with a one-partition ext4 layout on the first disk and the image it serves.
        standins: { machines: [{ uuid: AGENT_UUID, partition: "lab-a" }], allocateAfterMs: 300, image: image.image },
        // A BMC (ipmi_sim) behind QEMU's KCS interface; the stand-in hands out this superuser password.
        bmc: { superUserPassword: SUPER_USER_PASSWORD },
      });
      try {
        await lab.setUp();
        lab.startMachines();
        const m = lab.machines[0] as RunningMachine;
        await awaitExit(m, BOOT_TIMEOUT_MS);
        await lab.stopCaptures();
        const addr = eui64Address(m0.prefix, m0.mac);
        const log = lab.requests();
        // The boot side: script, kernel, the agent initrd, then the installation CA as a second initrd.
        expect(log.map((r) => `${r.status} ${r.path} ${r.src}`)).toEqual([
          `200 /boot.ipxe ${addr}`,
          `200 /p/lab-a/vmlinuz ${addr}`,
          `200 /p/lab-a/initrd-agent.img ${addr}`,
          `200 /p/lab-a/metal-ca.cpio ${addr}`,
        ]);
        expect(log[2]?.bytes).toBe(statSync(AGENT_INITRD).size);
        const recs = records(m.qemu);
        expect(recs.find((r) => r.event === "agent.start")).toMatchObject({ pid: 1, mode: "l3" });
        expect(recs.find((r) => r.event === "agent.config")).toMatchObject({
          config: { partition: "lab-a", metalBootUrl: `https://${LAB_NAMES.metalBoot}:${STANDINS_PORT}/`, allowHttp: false, caBundle: CA_IN_INITRD, uuid: AGENT_UUID },
        });
        // Every name through the RA's DNS server (the agent writes it from RDNSS and asks it itself): iPXE's
        // AAAA for metal-boot first, then the agent's for metal-boot, the apiserver and the image cache.
        const asked = lab.dnsQueries().filter((q) => q.from === addr);
        expect(asked.every((q) => q.type === "AAAA" && q.answer === STANDINS_ADDR)).toBe(true);
        expect(asked[0]?.name).toBe(LAB_NAMES.metalBoot);
        expect(new Set(asked.slice(1).map((q) => q.name))).toEqual(new Set(Object.values(LAB_NAMES)));
        expect(recs.filter((r) => r.event === "net.dad.done").map((r) => r.address)).toContain(`${addr}/64`);
        // The agent's own calls: metal-boot's config first, every one from its SLAAC address.
        const calls = lab.standinRequests();
        expect(calls[0]).toMatchObject({ server: "boot", path: `/config/${AGENT_UUID}`, source: addr, status: 200 });
        expect(calls.filter((c) => c.source !== addr)).toEqual([]);
        // Then the apiserver, then the image cache, with what metal-boot handed out.
        expect([...new Set(calls.map((c) => c.server))]).toEqual(["boot", "api", "images"]);
        // The refusals by design: EventService/Send is INFRA_ROLE only upstream, so the first event gets 403 and events
        // stop; the image ships .md5 and .sha256 sidecars, so the probe for a .sha512 one gets 404.
        const byDesign = (c: { status: number; path: string }) =>
          (c.status === 403 && c.path === "/metalstack.infra.v2.EventService/Send") || (c.status === 404 && c.path === "/debian/12/img.tar.lz4.sha512");
        expect(calls.filter((c) => c.status >= 400 && !byDesign(c))).toEqual([]);
        expect(calls.filter((c) => c.status === 403)).toHaveLength(1);
        expect(recs.find((r) => r.event === "boot.config")).toMatchObject({ partition: "lab-a" });
        // Register (with the partition) and Wait, then the stand-in's allocation (labAllocation: lab-<last 4 of uuid>).
        expect(calls.some((c) => c.server === "api" && c.path.endsWith(".BootService/Register"))).toBe(true);
        expect(recs.find((r) => r.event === "provision.allocation")).toMatchObject({ hostname: "lab-0001" });
        // The BMC in-band through /dev/ipmi0: Register carried what ipmi_sim serves, and the users the agent wrote
        // log in over lanplus from outside, as metal-bmc would; no password reached the console.
        expect(recs.find((r) => r.event === "bmc.read")).toMatchObject({
          present: true,
          ip: `${LAB_BMC_NET}.10`,
          mac: "02:00:00:00:0b:10",
          firmwareRevision: "1.02",
          vendor: "Supermicro",
          fru: { productSerial: LAB_FRU.productSerial, boardMfgSerial: LAB_FRU.boardSerial },
        });
        expect(recs.find((r) => r.event === "bmc.user")).toMatchObject({ user: "metal", id: 10 });
        expect(recs.find((r) => r.event === "bmc.superuser")).toMatchObject({ set: true, user: "root", id: 4 });
        const bmc = (
          (await lab.standinMachines()).registered[AGENT_UUID] as { bmc: { address: string; mac: string; user: string; password: string; interface: string; version: string } }
        ).bmc;
        expect({ ...bmc, password: typeof bmc.password }).toEqual({
          address: `${LAB_BMC_NET}.10:623`,
          mac: "02:00:00:00:0b:10",
          user: "metal",
          password: "string",
          interface: "lanplus",
          version: "1.02",
        });
        expect((await lab.bmcLogin(0, "metal", bmc.password)).ok).toBe(true);
        expect((await lab.bmcLogin(0, "root", SUPER_USER_PASSWORD)).ok).toBe(true);
        expect((await lab.bmcLogin(0, "metal", "Wrong1pass2")).ok).toBe(false);
        expect(m.qemu.text()).not.toContain(bmc.password);
        expect(m.qemu.text()).not.toContain(SUPER_USER_PASSWORD);
        // The rest of the flow on the disk, in order, then the installed OS's own first line and its power-off.
        expect(recs.filter((r) => r.event === "agent.stage").map((r) => r.stage)).toEqual([...STAGES]);
        expect(recs.filter((r) => r.event === "agent.fatal")).toEqual([]);
        expect(calls.filter((c) => c.path === "/metalstack.infra.v2.BootService/InstallationSucceeded").map((c) => c.status)).toEqual([200]);
        const consoleText = m.qemu.text();
        expect(consoleText.split("\n").some((l) => l.startsWith("testos: up: ") && l.includes(`TESTOS_MARKER=installed-${AGENT_UUID}`))).toBe(true);
        expect(consoleText).toContain("reboot: Power down");
        expect(await lab.countPackets(m, DHCP_FILTER)).toBe(0);
      } finally {
        await lab.tearDown();
      }
    },
    BOOT_TIMEOUT_MS + 60_000,
  );
});
