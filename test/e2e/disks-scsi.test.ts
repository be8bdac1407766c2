/**
 * End to end, the SCSI path of the wipe in QEMU: the lab kernel with our initramfs
 * (hdparm and sg3-utils from initramfs/tools.list) and the kernel's own SCSI target
 * emulator, `scsi_debug` (Debian builds it as a module; the test puts the host's
 * scsi_debug.ko in front, its dependencies are in the initramfs), as /dev/sda with a
 * GPT and an ext4 in it. The agent asks the drive (REPORT SUPPORTED OPERATION CODES
 * through `sg_opcodes`), plans from the answer and wipes, verified. scsi_debug
 * implements neither SANITIZE nor FORMAT UNIT (its opcode table has neither), so the
 * plan is metadata: what this shows is the probe and the plan on a real SCSI target;
 * the SANITIZE and FORMAT UNIT commands themselves are shown against fake sg tools
 * (test/machine/disk/wipe-drives.test.ts). Its answers, recorded, are vectors of the
 * parser tests (test/fixtures/disk/scsi/scsi_debug-*). scsi_debug offers write-zeroes
 * (WRITE SAME) and says it does not rotate, so the plan is zeroout, then metadata.
 * Needs root, QEMU, the lab kernel and an initramfs with the tools (~30 s);
 * `make test-disk-scsi-e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { KVER, LAB_INITRD, LAB_KERNEL } from "../../lab/base/kernel.ts";
import { parseHdparmIdentify } from "../../src/machine/disk/ata-id.ts";
import { parseScsiOpcodes } from "../../src/machine/disk/scsi-id.ts";
import { bootVm, guestScript, markers, type VmRun } from "./disks-seed.ts";

const SCSI_DEBUG = `/lib/modules/${KVER}/kernel/drivers/scsi/scsi_debug.ko`;
const manifest = `${LAB_INITRD}.manifest`;
const missing = [
  process.getuid?.() === 0 ? undefined : "root",
  Bun.which("qemu-system-x86_64") ? undefined : "qemu-system-x86_64",
  existsSync(LAB_KERNEL) ? undefined : `${LAB_KERNEL} (make build/lab/vmlinux-<kver>)`,
  existsSync(LAB_INITRD) ? undefined : `${LAB_INITRD} (make initramfs)`,
  existsSync(SCSI_DEBUG) ? undefined : `${SCSI_DEBUG} (Debian's kernel modules)`,
  existsSync(manifest) && readFileSync(manifest, "utf8").includes("usr/bin/sg_opcodes") ? undefined : `sg3-utils in ${LAB_INITRD} (rebuild it: initramfs/tools.list)`,
].filter((m) => m !== undefined);
if (missing.length > 0) console.warn(`e2e SCSI wipe skipped: missing ${missing.join(", ")}`);
if (missing.length > 0 && process.env.CI === "true") {
  test("e2e SCSI wipe has what it needs (CI)", () => {
    expect(missing).toEqual([]);
  });
}

const BOOT_BOUND_MS = 240_000;
const dir = resolve(`.lab/mhs-${randomBytes(3).toString("hex")}`);
/** Output lines joined with "|" on the console; back to lines. */
const lines = (t: string | undefined) => (t ?? "").split("|").join("\n");

describe.skipIf(missing.length > 0)("wipe through the SCSI path (QEMU, scsi_debug)", () => {
  let run: VmRun;
  let m: Map<string, { exit: number; text: string }>;
  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    // One small virtio disk so the script's wait for disks has one; scsi_debug comes after it.
    writeFileSync(`${dir}/vda.img`, new Uint8Array(8 * 1024 * 1024));
    const script = guestScript(
      ["vda"],
      [
        {
          name: "scsi",
          argv: "modprobe crc-t10dif; modprobe sd_mod; insmod /scsi_debug.ko dev_size_mb=16 && i=0 && while [ $i -lt 100 ] && [ ! -e /sys/block/sda ]; do sleep 0.1; i=$((i+1)); done; cat /sys/block/sda/device/vendor /sys/block/sda/device/model",
        },
        { name: "seed", argv: "sgdisk -n 1:0:+4M -t 1:8300 /dev/sda >/dev/null && blockdev --rereadpt /dev/sda && mkfs.ext4 -q /dev/sda1 && blkid -p -o export /dev/sda1" },
        { name: "opcodes", argv: "sg_opcodes --compact /dev/sda 2>&1 | tr '\\n' '|'" },
        { name: "hdparm", argv: "hdparm -I /dev/sda 2>&1 | tr '\\n' '|'" },
        // The way the agent hands hdparm a password, in the initramfs: on stdin, under util-linux's setsid -w, by the path the
        // agent's tool lookup finds (busybox sh would run its own setsid applet, which has no -w). scsi_debug ignores the command.
        {
          name: "stdin",
          argv: "printf 'e2eStdinPw42\\n' | /usr/bin/setsid -w /usr/sbin/hdparm --user-master u --security-prompt-for-password --security-unlock /dev/sda 2>&1 | tr '\\n' '|'",
        },
        { name: "wipe", argv: "metal-hammer disk wipe --yes --json --disks sda" },
        { name: "after", argv: "wipefs --no-act --noheadings /dev/sda; ls /sys/block/sda | grep -c '^sda[0-9]'" },
      ],
    );
    run = await bootVm({
      name: "scsi",
      dir,
      kernel: LAB_KERNEL,
      initrd: LAB_INITRD,
      disks: [{ file: `${dir}/vda.img`, kind: "virtio", serial: "vda" }],
      script,
      files: { "scsi_debug.ko": readFileSync(SCSI_DEBUG) },
      boundMs: BOOT_BOUND_MS,
    });
    m = markers(run.lines);
  }, BOOT_BOUND_MS + 30_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("scsi_debug is /dev/sda with a GPT and an ext4 in it", () => {
    expect(run.timedOut).toBe(false);
    expect(m.get("scsi")?.exit).toBe(0);
    expect(m.get("scsi")?.text).toMatch(/^Linux\s+scsi_debug$/);
    expect(m.get("seed")?.text).toContain("TYPE=ext4");
  });

  test("the drive answers REPORT SUPPORTED OPERATION CODES: no SANITIZE, no FORMAT UNIT (test/fixtures/disk/scsi/ keeps them)", () => {
    const text = lines(m.get("opcodes")?.text);
    expect(parseScsiOpcodes(text)).toMatchObject({ sanitizeCrypto: false, sanitizeBlock: false, sanitizeOverwrite: false, formatUnit: false });
    // hdparm on a SCSI disk prints "ATA device" for scsi_debug's all-zero answer: not an ATA device (the agent does not ask hdparm for an sd disk without the ATA vendor anyway).
    expect(parseHdparmIdentify(lines(m.get("hdparm")?.text))).toBeUndefined();
  });

  test("hdparm in the initramfs reads the password from stdin under setsid -w (no terminal asked), and echoes it on stdout", () => {
    expect(m.get("stdin")?.text).toContain('Issuing SECURITY_UNLOCK command, password="e2eStdinPw42", user=user');
  });

  test("the agent probes it through sg_opcodes (no note), plans from it (write-zeroes: zeroout), wipes and verifies; nothing left on it", () => {
    const w = m.get("wipe");
    expect(w?.exit).toBe(0);
    const report = JSON.parse(w?.text ?? "{}") as { disks: { disk: string; outcome: string; method: string; zeroesChecked: boolean; notes: string[] }[] };
    expect(report.disks.map((d) => [d.disk, d.outcome, d.method, d.zeroesChecked])).toEqual([["sda", "wiped", "zeroout", true]]);
    expect(report.disks[0]?.notes.filter((n) => /sg_opcodes|drive's own erase/.test(n))).toEqual([]);
    expect(m.get("after")?.text).toBe("0");
  });
});
