/**
 * Power loss mid-install (issue 27, fault 4), in QEMU through the whole chain (ISO ->
 * iPXE over IPv6 -> boot.ipxe -> the agent initramfs as PID 1 -> the https stand-ins):
 * the machine registers, wipes its disk, waits, is allocated by the test as the
 * operator while its Wait is open, builds the layout and starts streaming the image,
 * which the image cache stand-in trickles (its first half at once, then 4 KiB every
 * 250 ms, never the end: the kill lands mid-stream whatever the machine's speed). On the agent's first
 * `install.image.progress` line QEMU is killed by its PID with SIGKILL (the power
 * goes), and the disk image is read on the host: the killed install's partition and
 * filesystem are there, and the test leaves a file in that filesystem as the part of
 * the image that reached the disk (the guest's page cache died with it, so which of
 * its own files did is chance). Then the same machine powers on again with the same
 * disk image file and the same stand-ins (state kept: registered, allocated): it
 * registers again, wipes the disk with the old filesystem on it, Wait answers the
 * allocation at once (nobody allocates again: the stand-in's Wait sends the existing
 * one first, as metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:1331-1339
 * does), the install completes and the installed OS comes up with its marker. After its
 * power-off the disk holds a new filesystem (not the killed one's UUID), the leftover
 * file is gone, and the image's files are all there, its last tar entry included.
 * Needs root, QEMU, iPXE, xorriso, the lab kernel's bzImage and the agent initramfs
 * (`make initramfs`), debugfs and partx.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOT_SERVER_URL, ChainLab, type RunningMachine } from "../../lab/chain/chain-lab.ts";
import { chunkLines, records, type AgentRecord } from "../../lab/base/serial-console.ts";
import { installMedia } from "../../lab/standins/install-media.ts";
import { run } from "../../lab/ipxe/lab-process.ts";
import { KVER, LAB_INITRD } from "../../lab/base/kernel.ts";
import { labAllocation } from "../../lab/standins/machines.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { STAGES } from "../../src/config/stages.ts";

const ROOT_DIR = join(import.meta.dir, "../..");
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const AGENT_INITRD = join(ROOT_DIR, LAB_INITRD);
const UUID = "00000000-6d68-6300-0000-000000000027";
const PREFIX = "2001:db8:27::/64";
const NEEDS: [string, string][] = [
  ["/usr/bin/qemu-system-x86_64", "qemu-system-x86"],
  ["/usr/sbin/radvd", "radvd"],
  ["/usr/sbin/chronyd", "chrony"],
  ["/usr/bin/tcpdump", "tcpdump"],
  ["/usr/bin/xorriso", "xorriso"],
  ["/usr/bin/mcopy", "mtools"],
  ["/usr/lib/ipxe/ipxe.lkrn", "ipxe"],
  ["/usr/lib/ISOLINUX/isolinux.bin", "isolinux"],
  [join(ROOT_DIR, "build/ipxe-efi/ipxe.efi"), "make ipxe-efi"],
  ["/usr/sbin/debugfs", "e2fsprogs"],
  ["/usr/bin/partx", "util-linux"],
  [BZIMAGE, "linux-image-amd64"],
  [AGENT_INITRD, "make initramfs"],
];
const missing = [...(process.getuid?.() === 0 ? [] : ["root (netns, tap)"]), ...NEEDS.filter(([f]) => !existsSync(f)).map(([f, how]) => `${f} (${how})`)];
if (missing.length > 0 && process.env.CI === "true") throw new Error(`power-loss e2e cannot run under CI: missing ${missing.join(", ")}`);
const skipped = missing.length > 0 ? ` (skipped: missing ${missing.join(", ")})` : "";

/** Bounds: the first boot to its open Wait and to the image's first progress line; the second boot to the installed OS's power-off. */
const REGISTER_BOUND_MS = 150_000;
const STREAM_BOUND_MS = 90_000;
const SECOND_BOOT_BOUND_MS = 180_000;
/** The file the test leaves in the killed install's filesystem (what of the image had reached the disk). */
const LEFTOVER = "/left-by-the-killed-install";

const sh = (argv: string[]): { out: string; err: string } => {
  const p = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${p.stderr.toString()}`);
  return { out: p.stdout.toString(), err: p.stderr.toString() };
};
/** The disk image's partition 1 as debugfs opens it (read-only unless `write`), at its offset: no loop device. */
const partition1 = (disk: string): string => `${disk}?offset=${Number(sh(["partx", "-g", "-o", "START", "-n", "1", disk]).out.trim()) * 512}`;
/** debugfs's answer (stdout) and its complaints (stderr without its version banner). */
const debugfs = (fs: string, cmd: string, write = false): { out: string; err: string } => {
  const r = sh(["debugfs", ...(write ? ["-w"] : []), "-R", cmd, fs]);
  return { out: r.out, err: r.err.replace(/^debugfs \d.*\n/m, "") };
};
const fsUuid = (fs: string): string | undefined => /^Filesystem UUID:\s+(\S+)/m.exec(debugfs(fs, "stats").out)?.[1];
/**
 * Waits (bounded) for `probe` on machine `m`'s run; its QEMU ending first is an error unless `ends` (then that is
 * what is waited for). Either failure carries the console's last lines.
 */
async function until(m: RunningMachine, probe: () => boolean | Promise<boolean>, ms: number, what: string, ends = false): Promise<void> {
  const tail = () => m.qemu.text().split("\n").slice(-40).join("\n");
  try {
    await waitFor(
      () => {
        if (m.qemu.exitCode !== null) {
          if (ends) return true;
          throw new Error(`QEMU ended (${m.qemu.exitCode}) before ${what}`);
        }
        return probe();
      },
      ms,
      what,
      250,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; the console's last lines:\n${tail()}`);
  }
}
const recordsOf = (m: RunningMachine): (AgentRecord & { ms: number })[] => records(chunkLines(m.qemu.chunks, m.started));
const ev = (recs: readonly AgentRecord[], event: string): AgentRecord[] => recs.filter((r) => r.event === event);

describe.skipIf(missing.length > 0)(`power loss mid-install: killed while the image streams, powered on again with the same disk${skipped}`, () => {
  let work = "";
  let lab: ChainLab | undefined;
  let disk = "";
  let imageFile = "";
  let first: (AgentRecord & { ms: number })[] = [];
  let second: (AgentRecord & { ms: number })[] = [];
  let secondText = "";
  let secondExit: number | null = null;
  /** What the host saw on the disk image between the boots. */
  let between: { uuid: string | undefined; leftover: string } = { uuid: undefined, leftover: "" };
  let machinesBetween: { registered: Record<string, unknown>; allocations?: Record<string, unknown> } = { registered: {} };
  let requests: { server: string; path: string; status: number }[] = [];
  let trickleBytes = 0;
  let imageBytes = 0;

  beforeAll(
    async () => {
      work = mkdtempSync(join(tmpdir(), "mh-e2e-power-loss-"));
      const iso = join(work, "lab.iso");
      const env = { ...process.env, BOOT_URL: `${BOOT_SERVER_URL}/boot.ipxe`, ISO_ATTEMPTS: "3", ISO_RETRY_DELAY: "1" };
      const render = Bun.spawnSync([process.execPath, join(ROOT_DIR, "ipxe/render-chain.ts"), `${iso}.ipxe`], { env, stderr: "pipe" });
      if (render.exitCode !== 0) throw new Error(`render-chain: ${render.stderr.toString()}`);
      await run([join(ROOT_DIR, "ipxe/mkiso.sh"), `${iso}.ipxe`, iso]);
      const media = installMedia(join(work, "install"), { kernel: BZIMAGE });
      disk = media.disk;
      imageFile = media.image.image;
      imageBytes = media.image.bytes;
      // Half the image at once (tar has unpacked part of it), then the trickle.
      trickleBytes = Math.floor(imageBytes / 2);
      lab = new ChainLab({
        iso,
        machines: [{ name: "m", prefix: PREFIX, mac: "52:54:00:27:00:04", disks: [disk] }],
        memoryMb: 1024,
        bootServer: {
          partitions: [
            {
              name: "lab",
              prefix: PREFIX,
              kernel: BZIMAGE,
              initrd: AGENT_INITRD,
              initrdVersion: "agent",
              metalBootUrl: BOOT_SERVER_URL,
              extraInitrds: [],
              // No switch in this lab: LLDP is given 1 s before Register.
              cmdline: `console=ttyS0,115200 panic=-1 METAL_LOG_FORMAT=json METAL_DONE=poweroff METAL_NET_TIMEOUT=30s METAL_LLDP_TIMEOUT=1s METAL_REBOOT_DELAY=1s METAL_UUID=${UUID}`,
            },
          ],
        },
        // No --allocate-after: the test allocates once, so the second boot's allocation can only come from Wait sending the existing one.
        standins: { machines: [{ uuid: UUID, partition: "lab" }], image: imageFile, imageTrickleBytes: trickleBytes },
      });
      await lab.setUp();
      lab.startMachines();
      const m1 = lab.machines[0] as RunningMachine;
      /** Whether the first boot logged `event` (with `pred`). */
      const logged =
        (event: string, pred: (r: AgentRecord) => boolean = () => true) =>
        () =>
          ev(recordsOf(m1), event).some(pred);
      // The operator allocates while the first boot's Wait is open (the stand-in sends it on that stream); the
      // second boot's Wait then opens on a machine already allocated, and nobody sends it anything.
      const l = lab;
      await until(
        m1,
        async () => logged("provision.wait")() && ((await l.standinMachines()) as { openWaits?: string[] }).openWaits?.includes(UUID) === true,
        REGISTER_BOUND_MS,
        "the first boot to register and open its Wait (provision.wait on its console, the stand-in's open Waits)",
      );
      await lab.allocate(UUID, labAllocation(UUID, true));
      await until(
        m1,
        logged("install.image.progress", (r) => Number(r.bytes) > 0),
        STREAM_BOUND_MS,
        "the first boot's image download to report progress (install.image.progress)",
      );
      await lab.powerLoss("m");
      first = recordsOf(m1);

      // The disk as the power loss left it (QEMU is gone: the file is what the guest had written).
      const fs1 = partition1(disk);
      between = { uuid: fsUuid(fs1), leftover: "" };
      const leftoverSrc = join(work, "leftover");
      writeFileSync(leftoverSrc, "half of an image\n");
      debugfs(fs1, `write ${leftoverSrc} ${LEFTOVER}`, true);
      between.leftover = debugfs(fs1, `cat ${LEFTOVER}`).out;
      machinesBetween = (await lab.standinMachines()) as typeof machinesBetween;

      const m2 = lab.powerOn("m");
      await until(m2, () => false, SECOND_BOOT_BOUND_MS, "the second boot to end (the installed OS powers off)", true);
      secondExit = m2.qemu.exitCode;
      second = recordsOf(m2);
      secondText = m2.qemu.text();
      requests = lab.standinRequests();
      const at = (recs: typeof first, event: string) => ((ev(recs, event)[0] as { ms?: number } | undefined)?.ms ?? Number.NaN) / 1000;
      const wipe2 = ev(second, "disk.wipe.done")[0];
      const up = m2.qemu.timeOf(/testos: up: /);
      console.log(
        `power-loss: first boot: registered at ${at(first, "provision.register").toFixed(1)} s, image streaming at ${at(first, "install.image.progress").toFixed(1)} s (${ev(first, "install.image.progress").at(-1)?.bytes} of ${imageBytes} bytes), killed; ` +
          `second boot: registered at ${at(second, "provision.register").toFixed(1)} s, vda wiped by ${wipe2?.method} in ${wipe2?.durationMs} ms, allocation after ${ev(second, "provision.allocation")[0]?.waitedMs} ms, ` +
          `installed OS up at ${up === undefined ? "-" : ((up - m2.started) / 1000).toFixed(1)} s`,
      );
    },
    REGISTER_BOUND_MS + STREAM_BOUND_MS + SECOND_BOOT_BOUND_MS + 60_000,
  );

  afterAll(async () => {
    await lab?.tearDown();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the first boot got as far as the image: registered, wiped, allocated, layout built, part of the image received, nothing failed", () => {
    expect(ev(first, "agent.fatal")).toEqual([]);
    expect(ev(first, "agent.stage").map((s) => s.stage)).toEqual(STAGES.slice(0, STAGES.indexOf("install") + 1));
    expect(ev(first, "disk.wipe.done").map((d) => d.disk)).toEqual(["vda"]);
    expect(ev(first, "provision.allocation")).toHaveLength(1);
    const progress = ev(first, "install.image.progress").map((p) => Number(p.bytes));
    expect(progress.at(-1)).toBeGreaterThanOrEqual(trickleBytes);
    expect(progress.at(-1)).toBeLessThan(imageBytes);
    expect(ev(first, "install.image.done")).toEqual([]);
  });

  test("between the boots the disk holds the killed install's filesystem, and the stand-ins kept the machine registered and allocated", () => {
    const layout1 = ev(first, "disk.layout.done")[0];
    expect(between.uuid).toBe(String(layout1?.rootUuid));
    expect(between.leftover).toContain("half of an image");
    expect(Object.keys(machinesBetween.registered)).toEqual([UUID]);
    expect(Object.keys(machinesBetween.allocations ?? {})).toEqual([UUID]);
  });

  test("the second boot registers again, wipes the disk with the old filesystem on it, and Wait answers the existing allocation at once", () => {
    expect(ev(second, "provision.register")).toHaveLength(1);
    const wiped = ev(second, "disk.wipe.done");
    expect(wiped.map((d) => d.disk)).toEqual(["vda"]);
    // Nobody allocated again: the allocation the second boot got is the first one, sent when its Wait opened.
    const [a1, a2] = [ev(first, "provision.allocation")[0], ev(second, "provision.allocation")[0]];
    expect(a2?.hostname).toBe(a1?.hostname);
    expect(a2?.image).toBe(a1?.image);
    expect(a2?.allocation).toEqual(a1?.allocation);
    expect(Number(a2?.waitedMs)).toBeLessThan(5_000);
    expect(a2?.reconnects).toBe(0);
  });

  test("the install completes on a new filesystem and the installed OS comes up with its marker", () => {
    expect(ev(second, "agent.fatal")).toEqual([]);
    expect(ev(second, "agent.stage").map((s) => s.stage)).toEqual([...STAGES]);
    expect(ev(second, "install.image.done")).toHaveLength(1);
    expect(String(ev(second, "disk.layout.done")[0]?.rootUuid)).not.toBe(between.uuid);
    expect(requests.filter((q) => q.path === "/metalstack.infra.v2.BootService/InstallationSucceeded").map((q) => q.status)).toEqual([200]);
    expect(secondText.split("\n").some((l) => l.startsWith("testos: up: ") && l.includes(`TESTOS_MARKER=installed-${UUID}`))).toBe(true);
    expect(secondText).toContain("reboot: Power down");
    expect(secondExit).toBe(0);
  });

  test("nothing half-written survives: the disk's root is the second install's filesystem, without the leftover, with all of the image", () => {
    const fs2 = partition1(disk);
    const uuid2 = fsUuid(fs2);
    expect(uuid2).toBe(String(ev(second, "disk.layout.done")[0]?.rootUuid));
    expect(uuid2).not.toBe(between.uuid);
    expect(debugfs(fs2, `stat ${LEFTOVER}`).err).toContain("File not found");
    expect(debugfs(fs2, "cat /installed-marker").out.trim()).toBe(`installed ${UUID}`);
    expect(debugfs(fs2, "cat /etc/fstab").out).toMatch(new RegExp(`^UUID=${uuid2}\\s+/\\s+ext4`, "m"));
    // The image's last tar entry (what a download cut short would miss) is on the disk.
    const entries = sh(["sh", "-c", `lz4 -dc '${imageFile}' | tar -t`])
      .out.split("\n")
      .filter((e) => e !== "" && !e.endsWith("/"));
    const last = (entries.at(-1) as string).replace(/^\./, "");
    expect(debugfs(fs2, `stat ${last}`).out).toContain("Inode:");
  });
});
