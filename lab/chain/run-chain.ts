/**
 * `make lab-chain` (and `make lab BOOT=chain`): boots one QEMU machine through the whole
 * chain (ISO -> iPXE SLAAC -> boot.ipxe -> kernel + initrd) and streams its console.
 * Exits with QEMU's exit code when the machine powers off (or 124 after LAB_TIMEOUT s);
 * Ctrl-C/SIGTERM tear everything down (the lab's lifecycle) and exit 130/143.
 *
 *   bun lab/chain/run-chain.ts <iso> <kernel> <initrd> [initrd-version]
 * Env: LAB_PREFIX (2001:db8:a::/64), LAB_MAC, LAB_CMDLINE (extra words), LAB_MEM (MB),
 *      LAB_TIMEOUT (seconds, 300), LAB_KEEP=1 keeps the work dir, LAB_NIC=virtio|e1000,
 *      LAB_STANDINS=1 runs the https stand-ins and points the agent at them, with
 *      LAB_UUID (00000000-6d68-6300-0000-000000000001) known to their metal-boot; their
 *      apiserver allocates the machine 300 ms after it registers (LAB_ALLOCATE=0: it waits).
 *      LAB_NICS (2): NICs of the machine, each on its own port and /64 (LAB_PREFIX, then
 *      2001:db8:b::/64, ...); LAB_LLDP=0: no lldpd switches (default: leaf01, leaf02, ... one per port).
 *      LAB_SWITCH_OS=sonic (default: the leaves announce as SONiC's lldpmgrd configures lldpd) or
 *      cumulus (lldpd's defaults); with the stand-ins the run ends with the machine's switch
 *      connections as the apiserver stand-in made them ("lab: connected: leaf01 Ethernet0, leaf02 Ethernet0").
 *      LAB_FIRMWARE=bios (SeaBIOS, default) or uefi (OVMF, a copy of its variable store in the lab's dir).
 *      LAB_INSTALL=1 (with LAB_STANDINS=1): the machine gets a sparse 1 GiB virtio disk and the
 *      stand-ins serve the test OS image (lab/images/build.ts, <kernel> as its kernel; GRUB's EFI
 *      build and an ESP in the layout on uefi), so the agent goes on through wipe, layout, image,
 *      installer, InstallationSucceeded and kexec; the run then passes (exit 0) only when the
 *      installed OS said it is up with the installer's marker on its command line, else exit 1.
 *      LAB_BMC=1 (the default with LAB_STANDINS=1; 0: none): the machine has a BMC (ipmi_sim, lab/bmc/sim.ts)
 *      and the stand-ins hand out a superuser password; after the run the lab logs in over lanplus with
 *      the metal user and password the stand-in received in Register and as the superuser (lab: bmc: lines),
 *      and the run fails (exit 1) when either login fails.
 *      LAB_CHAIN=name (default: the ISO chains metal-boot by name over http, the lab's DNS server answers;
 *      the agent reaches metal-boot, the apiserver and the image cache by name), name-tls (the same, boot.ipxe,
 *      kernel and initrd over https with the lab's CA in the UEFI firmware: LAB_FIRMWARE=uefi) or literal
 *      (IP literals, http). It must match the ISO (mk/iso.mk builds one per kind). The run ends with the
 *      DNS server's log (lab: dns: lines).
 *      LAB_TIMELINE_DIR (build/lab): where the run's timeline goes (timeline.txt, timeline.svg;
 *      lab/base/timeline.ts), also printed at the end.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installMedia } from "../standins/install-media.ts";
import { SWITCH_OSES, type LabSwitchOs } from "../rig/plan.ts";
import { BOOT_SERVER_URL, ChainLab, chainOrigin } from "./chain-lab.ts";
import { chunkLines, records } from "../base/serial-console.ts";
import { interruptExit, LabInterrupted } from "../lifecycle/lifecycle.ts";
import { phases, timelineMarks, timelineSvg, timelineTable } from "../base/timeline.ts";

const [iso, kernel, initrd, version = "lab"] = process.argv.slice(2);
if (!iso || !kernel || !initrd) {
  console.error("usage: run-chain.ts <iso> <kernel> <initrd> [initrd-version]");
  process.exit(2);
}
const env = process.env;
const prefix = env.LAB_PREFIX || "2001:db8:a::/64";
const uuid = env.LAB_UUID || "00000000-6d68-6300-0000-000000000001";
function switchOs(v: string | undefined): LabSwitchOs {
  if (!v) return "sonic";
  if (!(SWITCH_OSES as readonly string[]).includes(v)) {
    console.error(`LAB_SWITCH_OS=${JSON.stringify(v)}: expected ${SWITCH_OSES.join(" or ")}`);
    process.exit(2);
  }
  return v as LabSwitchOs;
}
const firmware = env.LAB_FIRMWARE || "bios";
if (firmware !== "bios" && firmware !== "uefi") {
  console.error(`LAB_FIRMWARE=${JSON.stringify(firmware)}: expected bios or uefi`);
  process.exit(2);
}
if (env.LAB_INSTALL === "1" && env.LAB_STANDINS !== "1") {
  console.error("LAB_INSTALL=1 needs LAB_STANDINS=1 (the stand-ins serve the image and allocate the machine)");
  process.exit(2);
}
if (env.LAB_INSTALL === "1" && env.LAB_ALLOCATE === "0") {
  console.error("LAB_INSTALL=1 needs the allocation (LAB_ALLOCATE=0 given)");
  process.exit(2);
}
const chainKind = env.LAB_CHAIN || "name";
if (!["name", "name-tls", "literal"].includes(chainKind)) {
  console.error(`LAB_CHAIN=${JSON.stringify(chainKind)}: expected name, name-tls or literal`);
  process.exit(2);
}
if (chainKind === "name-tls" && firmware !== "uefi") {
  console.error("LAB_CHAIN=name-tls needs LAB_FIRMWARE=uefi (only UEFI iPXE reads the firmware's HTTPS boot CA)");
  process.exit(2);
}
const names = chainKind === "literal" ? undefined : { tls: chainKind === "name-tls" };
const install = env.LAB_INSTALL === "1" ? prepareInstall(kernel, firmware === "uefi") : undefined;
const bmc = env.LAB_STANDINS === "1" && env.LAB_BMC !== "0" ? { superUserPassword: labPassword() } : undefined;

/** A superuser password for the lab's stand-in to hand out: 12 letters and digits (the lab BMC keeps 16). */
function labPassword(): string {
  const a = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  return [...crypto.getRandomValues(new Uint8Array(12))].map((b) => a[b % a.length]).join("");
}

/** The BMC as Register carried it and the two lanplus logins; false when a login failed. */
async function checkBmc(): Promise<boolean> {
  const reg = (await lab.standinMachines()).registered[uuid] as
    | { bmc?: { address?: string; mac?: string; user?: string; password?: string; version?: string }; fru?: Record<string, string> }
    | undefined;
  const b = reg?.bmc;
  if (!b?.user || !b.password) {
    console.error(
      `lab: bmc: Register carried no BMC credentials (${reg ? JSON.stringify({ bmc: b ? { ...b, password: b.password ? "(set)" : "" } : null }) : "the machine never registered"})`,
    );
    return false;
  }
  console.error(`lab: bmc: Register carried ${b.address} ${b.mac} firmware ${b.version}, user ${b.user}; FRU product serial ${reg?.fru?.productSerial ?? "(none)"}`);
  const asUser = await lab.bmcLogin(0, b.user, b.password);
  const asRoot = await lab.bmcLogin(0, "root", bmc!.superUserPassword);
  console.error(
    `lab: bmc: lanplus login as ${b.user} with the registered password: ${asUser.ok ? "ok" : `FAILED (${asUser.out.split("\n").at(-1)})`}; as root with the handed-out superuser password: ${asRoot.ok ? "ok" : `FAILED (${asRoot.out.split("\n").at(-1)})`}`,
  );
  return asUser.ok && asRoot.ok;
}

/** The disk and the test OS image of an install run, in a directory of their own. */
function prepareInstall(osKernel: string, uefi: boolean): { dir: string; disk: string; image: string } {
  const dir = mkdtempSync(join(tmpdir(), "mhc-install-"));
  const { disk, image: img } = installMedia(dir, { kernel: osKernel, efi: uefi });
  console.error(`lab: install: disk ${disk} (1 GiB, sparse), test OS image ${img.image} (${img.bytes} bytes)`);
  return { dir, disk, image: img.image };
}

const lab = new ChainLab({
  iso,
  firmware,
  ...(names ? { names } : {}),
  nicModel: env.LAB_NIC === "e1000" ? "e1000" : "virtio",
  ...(env.LAB_STANDINS === "1"
    ? {
        standins: {
          machines: [{ uuid, partition: "lab" }],
          ...(env.LAB_ALLOCATE === "0" ? {} : { allocateAfterMs: 300 }),
          ...(install ? { image: install.image, esp: firmware === "uefi" } : {}),
        },
      }
    : {}),
  memoryMb: Number(env.LAB_MEM || 1024),
  keepDir: env.LAB_KEEP === "1",
  machines: [
    {
      name: "lab",
      prefix,
      mac: env.LAB_MAC || "52:54:00:12:34:56",
      ...(install ? { disks: [install.disk] } : {}),
      moreNics: Array.from({ length: Math.max(0, Number(env.LAB_NICS || 2) - 1) }, (_, k) => ({
        prefix: `2001:db8:${(0xb + k).toString(16)}::/64`,
        mac: `52:54:00:12:34:${(0x57 + k).toString(16)}`,
      })),
    },
  ],
  switches: env.LAB_LLDP !== "0",
  ...(bmc ? { bmc } : {}),
  switchOs: switchOs(env.LAB_SWITCH_OS),
  bootServer: {
    partitions: [
      {
        name: "lab",
        prefix,
        kernel,
        initrd,
        initrdVersion: version,
        metalBootUrl: env.LAB_METAL_BOOT_URL || BOOT_SERVER_URL,
        // No console=: metal-boot's boot.ipxe picks it by the manufacturer, as pixie does (QEMU: ttyS0).
        cmdline: `panic=-1 ${env.LAB_STANDINS === "1" ? `METAL_UUID=${uuid} ` : ""}${env.LAB_CMDLINE ?? ""}`.trim(),
      },
    ],
  },
});
// The lifecycle owns SIGINT/SIGTERM: with the machine running its QEMU is stopped and the run
// unwinds to finish(130/143); before or after that, clean-up at once and exit 130/143.
if (install && env.LAB_KEEP !== "1") lab.onCleanUp(`install dir ${install.dir}`, () => rmSync(install.dir, { recursive: true, force: true }));
lab.catchSignals((line) => console.error(`lab: ${line}`));
const finish = async (code: number): Promise<never> => {
  await lab.tearDown();
  if (env.LAB_KEEP === "1") console.error(`lab: kept ${lab.dir}${install ? ` and ${install.dir}` : ""}`);
  process.exit(code);
};
try {
  console.error(`lab: namespace ${lab.ns}, prefix ${prefix}, metal-boot ${chainOrigin(names)}, firmware ${firmware}, chain ${chainKind}`);
  await lab.setUp();
  lab.startMachines();
  const m = lab.machines[0];
  if (!m) throw new Error("no machine started");
  let shown = 0;
  const timer = setInterval(() => {
    const text = m.qemu.chunks
      .slice(shown)
      .map((c) => c.text)
      .join("");
    shown = m.qemu.chunks.length;
    if (text) process.stdout.write(text);
  }, 100);
  const timeoutS = Number(env.LAB_TIMEOUT || 300);
  const code = await lab.whileRunning(Promise.race([m.qemu.exited, Bun.sleep(timeoutS * 1000).then(() => 124)]));
  clearInterval(timer);
  process.stdout.write(
    m.qemu.chunks
      .slice(shown)
      .map((c) => c.text)
      .join(""),
  );
  console.error(`\nlab: machine ${code === 124 ? `still running after ${timeoutS} s` : `exited (${code})`}; requests:`);
  for (const r of lab.requests()) console.error(`  ${r.status} ${r.method} ${r.origin ?? ""}${r.path} from ${r.src} (${r.bytes} bytes)`);
  for (const q of lab.dnsQueries()) console.error(`lab: dns: ${q.type} ${q.name} from ${q.from}: ${q.answer ?? "(no answer logged)"}`);
  const lines = chunkLines(m.qemu.chunks, m.started);
  for (const l of lab.summary(uuid, records(lines))) console.error(`lab: ${l}`);
  const ps = phases(timelineMarks(lines), (m.qemu.chunks.at(-1)?.t ?? m.started) - m.started);
  const table = timelineTable(ps);
  const outDir = env.LAB_TIMELINE_DIR || "build/lab";
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "timeline.txt"), table + "\n");
  writeFileSync(join(outDir, "timeline.svg"), timelineSvg(ps, `make lab (${firmware}): where the time went, ${new Date().toISOString().slice(0, 16)}Z`));
  console.error(`lab: where the time went (console time; ${join(outDir, "timeline.svg")}):\n${table}`);
  if (install && code !== 124) {
    // The installed OS's init prints its command line: boot-info.yaml's, with the installer's marker (lab/images/build.ts).
    const marker = `TESTOS_MARKER=installed-${uuid}`;
    const up = m.qemu
      .text()
      .split("\n")
      .some((l) => l.includes("testos: up:") && l.includes(marker));
    console.error(
      up
        ? `lab: installed: the agent kexec'd into the installed OS, which is up (${marker} on its command line)`
        : `lab: the install did not reach the installed OS (no "testos: up: ... ${marker}" on the console)`,
    );
    const bmcOk = bmc ? await checkBmc() : true;
    await finish(up && bmcOk ? 0 : 1);
  }
  await finish(code);
} catch (e) {
  console.error(`lab: ${e instanceof Error ? e.message : String(e)}`);
  await finish(e instanceof LabInterrupted ? interruptExit(e.signal) : 1);
}
