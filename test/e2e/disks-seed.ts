/**
 * The disk test's machinery on the host: a Linux md v1.2 superblock written without the
 * md driver (the build host has none), the guest's script, QEMU's argv, loop devices
 * created and detached by the test itself. Superblock layout and checksum: the kernel's
 * include/uapi/linux/raid/md_p.h (struct mdp_superblock_1) and drivers/md/md.c
 * calc_sb_1_csum, as libblkid (superblocks/linux_raid.c) and mdadm check them.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { encodeCpio } from "../../initramfs/lib/cpio.ts";
import { composeImage } from "../../initramfs/lib/layout.ts";
import { qemuMachineArgv } from "../../lab/base/qemu.ts";

export const MD_MAGIC = 0xa92b4efc;
/** v1.2: 4 KiB from the start of the member. */
export const MD_SB_1_2_OFFSET = 4096;

export function mdSuperblock12(memberSectors: number, devNumber: number, setUuid: Uint8Array, name: string): Uint8Array {
  const maxDev = 2;
  const sb = new Uint8Array(1024);
  const v = new DataView(sb.buffer);
  const dataOffset = 2048;
  v.setUint32(0, MD_MAGIC, true);
  v.setUint32(4, 1, true); // major_version
  sb.set(setUuid.subarray(0, 16), 16);
  sb.set(new TextEncoder().encode(name).subarray(0, 31), 32);
  v.setBigUint64(64, BigInt(Math.floor(Date.now() / 1000)), true); // ctime
  v.setUint32(72, 1, true); // level 1
  v.setBigUint64(80, BigInt(memberSectors - dataOffset), true); // size
  v.setUint32(92, 2, true); // raid_disks
  v.setBigUint64(128, BigInt(dataOffset), true); // data_offset
  v.setBigUint64(136, BigInt(memberSectors - dataOffset), true); // data_size
  v.setBigUint64(144, BigInt(MD_SB_1_2_OFFSET / 512), true); // super_offset
  v.setUint32(160, devNumber, true);
  sb.set(randomBytes(16), 168); // device_uuid
  v.setBigUint64(200, 1n, true); // events
  v.setBigUint64(208, 0xffffffffffffffffn, true); // resync_offset: clean
  v.setUint32(220, maxDev, true);
  v.setUint16(256, 0, true);
  v.setUint16(258, 1, true);
  // calc_sb_1_csum: 32-bit little-endian words over 256 + 2*max_dev bytes, sb_csum as 0, carry folded once.
  let sum = 0n;
  const size = 256 + maxDev * 2;
  for (let i = 0; i + 4 <= size; i += 4) sum += BigInt(v.getUint32(i, true));
  const csum = (sum & 0xffffffffn) + (sum >> 32n);
  v.setUint32(216, Number(csum & 0xffffffffn), true);
  return sb;
}

export function sh(argv: readonly string[], env?: Record<string, string>): string {
  const r = Bun.spawnSync([...argv], { stdout: "pipe", stderr: "pipe", ...(env ? { env: { ...process.env, ...env } } : {}) });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** A loop device over [offset, offset+size) of a file (read-only unless `rw`); detach it with detachLoop. */
export function attachLoop(file: string, offset = 0, size?: number, rw = false): string {
  return sh(["losetup", "--find", "--show", ...(rw ? [] : ["--read-only"]), "--offset", String(offset), ...(size ? ["--sizelimit", String(size)] : []), file]).trim();
}

export function detachLoop(dev: string): void {
  Bun.spawnSync(["losetup", "--detach", dev]);
}

export interface GptPartition {
  readonly number: number;
  readonly start: number;
  readonly end: number;
  readonly sizeBytes: number;
  readonly code: string;
  readonly name: string;
}

/** `sgdisk -p` on an image file -> partitions (512-byte sectors). Pure parse. */
export function parseSgdiskPrint(text: string): GptPartition[] {
  const out: GptPartition[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+ \S+\s+([0-9A-F]{4})\s*(.*)$/.exec(line);
    if (m)
      out.push({
        number: Number(m[1]),
        start: Number(m[2]),
        end: Number(m[3]),
        sizeBytes: (Number(m[3]) - Number(m[2]) + 1) * 512,
        code: m[4] as string,
        name: (m[5] ?? "").trim(),
      });
  }
  return out;
}

/** `blkid -p -o export` at a byte offset of a file or device -> properties (empty: nothing found). */
export function probe(dev: string, offset = 0, usage?: string): Record<string, string> {
  const r = Bun.spawnSync(["blkid", "-p", "-o", "export", ...(offset ? ["-O", String(offset)] : []), ...(usage ? ["-u", usage] : []), dev], { stdout: "pipe", stderr: "pipe" });
  const out: Record<string, string> = {};
  for (const l of r.stdout.toString().split("\n")) {
    const i = l.indexOf("=");
    if (i > 0) out[l.slice(0, i)] = l.slice(i + 1);
  }
  return out;
}

/** `wipefs` (list mode, changes nothing) on a file or device: the signatures it finds. */
export function signatures(dev: string): string[] {
  return sh(["wipefs", "--no-act", "--noheadings", "--output", "TYPE,OFFSET", dev])
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

export interface GuestDisk {
  readonly file: string;
  readonly kind: "virtio" | "nvme";
  readonly serial: string;
  readonly readOnly?: boolean;
  /** QEMU's drive discard= (ignore: the device accepts discard and keeps the data). */
  readonly discard?: "ignore" | "unmap";
  /** The virtio device advertises neither discard nor write-zeroes (a plain hard disk). */
  readonly plain?: boolean;
}

export function diskArgs(disks: readonly GuestDisk[]): string[] {
  return disks.flatMap((d, i) => [
    "-drive",
    `file=${d.file},if=none,id=d${i},format=raw,discard=${d.discard ?? "ignore"}${d.readOnly ? ",readonly=on" : ""}`,
    "-device",
    d.kind === "nvme" ? `nvme,drive=d${i},serial=${d.serial}` : `virtio-blk-pci,drive=d${i},serial=${d.serial}${d.plain ? ",discard=off,write-zeroes=off" : ""}`,
  ]);
}

/**
 * The guest's /init for one phase: mount, load the initramfs's modules, wait for the
 * expected disks, run the commands (each prints a marker line with its exit code and
 * its JSON), then power off. Markers: `MHT <name> <exit> <json>`.
 */
export function guestScript(expectDisks: readonly string[], commands: readonly { name: string; argv: string }[]): string {
  const waitDisks = expectDisks.map((d) => `[ -e /sys/block/${d} ]`).join(" && ");
  return [
    "#!/bin/busybox sh",
    "/bin/busybox mount -t proc proc /proc",
    "export PATH=/usr/sbin:/usr/bin:/sbin:/bin METAL_LOG_FORMAT=json",
    "mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs run /run; mount -t tmpfs tmp /tmp",
    // The boot list (what PID 1 loads without a device) plus the disk drivers PID 1 would load by
    // modalias; efivarfs is absent (ENODEV) on BIOS firmware, as PID 1 reports it too.
    'for m in $(cat /lib/modules/$(uname -r)/modules.load) virtio_pci virtio_blk nvme; do modprobe $m || { [ "$m" = efivarfs ] && [ ! -d /sys/firmware/efi ]; } || echo "MHT modprobe-failed $m"; done',
    "i=0",
    `while [ $i -lt 300 ] && ! { ${waitDisks}; }; do sleep 0.1; i=$((i+1)); done`,
    `echo "MHT disks-seen $i $(ls /sys/block | tr '\\n' ' ')"`,
    ...commands.flatMap((c) => [`${c.argv} > /tmp/${c.name}.out`, `rc=$?`, `echo "MHT ${c.name} $rc $(cat /tmp/${c.name}.out | tr '\\n' ' ')"`]),
    "sync",
    'echo "MHT done 0"',
    "poweroff -f",
    "",
  ].join("\n");
}

/** Marker lines from the console: name -> { exit, text }. */
export function markers(lines: readonly string[]): Map<string, { exit: number; text: string }> {
  const out = new Map<string, { exit: number; text: string }>();
  for (const l of lines) {
    const m = /MHT (\S+) (-?\d+) ?(.*)$/.exec(l);
    if (m) out.set(m[1] as string, { exit: Number(m[2]), text: (m[3] ?? "").trim() });
  }
  return out;
}

export interface VmRun {
  readonly lines: string[];
  readonly exit: number | null;
  readonly timedOut: boolean;
}

export interface VmBoot {
  readonly name: string;
  /** Where the console log and argv are kept. */
  readonly dir: string;
  readonly kernel: string;
  readonly initrd: string;
  readonly disks: readonly GuestDisk[];
  /** The guest's /init (rdinit=/mht-init). */
  readonly script: string;
  /** More files for the guest, by path (text, or bytes such as a kernel module). */
  readonly files?: Record<string, string | Uint8Array>;
  readonly boundMs: number;
}

/** Boots the lab kernel with the built initramfs and a small cpio in front; resolves when QEMU exits (killed at the bound). */
export async function bootVm(b: VmBoot): Promise<VmRun> {
  const { name, dir, disks, script, files = {} } = b;
  const entries = {
    "mht-init": { data: new TextEncoder().encode(script), mode: 0o755 },
    ...Object.fromEntries(Object.entries(files).map(([p, t]) => [p, { data: typeof t === "string" ? new TextEncoder().encode(t) : t, mode: 0o644 }])),
  };
  const image = composeImage(
    Object.entries(entries).map(([path, f]) => ({ kind: "file", path, mode: f.mode, size: f.data.length, source: { kind: "bytes", data: f.data }, group: "test" })),
  );
  const initrd = `${dir}/${name}.initrd`;
  // Uncompressed first: the built lz4 archive has no end marker (lab/standins/overlay.ts).
  writeFileSync(initrd, encodeCpio(image.entries, 0, new Map(Object.entries(entries).map(([p, f]) => [p, f.data]))));
  writeFileSync(initrd, readFileSync(b.initrd), { flag: "a" });
  const argv = [...qemuMachineArgv(1024), "-kernel", b.kernel, "-initrd", initrd, "-append", "console=ttyS0,115200 panic=-1 quiet loglevel=1 rdinit=/mht-init", ...diskArgs(disks)];
  writeFileSync(`${dir}/${name}.argv`, JSON.stringify(argv, null, 1));
  const q = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    q.kill("SIGKILL");
  }, b.boundMs);
  const out = await new Response(q.stdout).text();
  const exit = await q.exited;
  clearTimeout(timer);
  rmSync(initrd, { force: true });
  writeFileSync(`${dir}/${name}.console.log`, out + (await new Response(q.stderr).text()));
  return { lines: out.split("\n").map((l) => l.replace(/\r/g, "")), exit, timedOut };
}
