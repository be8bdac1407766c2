/**
 * PID 1 of the kexec e2e (compiled with `bun build --compile`, run by the initramfs'
 * /init shim after /proc is mounted): boots /kexec/vmlinuz with /kexec/initrd and the
 * cmdline from /kexec/cmdline through src/install/kexec.ts bootInstalled with the real
 * syscalls (src/platform/sys/kexec-syscall.ts). If that returns (a reboot instead of a kexec, or an
 * error), it says so on the console and powers off.
 */
import { readFileSync } from "node:fs";
import { bootInstalled } from "../../../src/install/kexec.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { linuxKexec } from "../../../src/platform/sys/kexec-syscall.ts";

const log = createLogger({ level: "info", format: "json", write: (l) => process.stdout.write(l), secrets: new SecretSet() });
const cmdline = readFileSync("/kexec/cmdline", "utf8").trim();
process.stdout.write(`KEXEC-SMOKE start, cmdline ${cmdline.length} bytes\n`);
try {
  const out = await bootInstalled({
    root: "/",
    bootInfo: { kernel: "/kexec/vmlinuz", initrd: "/kexec/initrd", cmdline, bootloaderId: "" },
    log,
    sys: {
      ...linuxKexec,
      reboot: (cmd) => (cmd === 0x45584543 ? linuxKexec.reboot(cmd) : (process.stdout.write(`KEXEC-SMOKE would reboot instead\n`), linuxKexec.reboot(0x4321fedc))),
    },
    unmountTarget: async () => void process.stdout.write("KEXEC-SMOKE unmount target (nothing mounted here)\n"),
  });
  process.stdout.write(`KEXEC-SMOKE returned ${JSON.stringify(out)}\n`);
} catch (e) {
  process.stdout.write(`KEXEC-SMOKE failed: ${(e as Error).message}\n`);
}
linuxKexec.reboot(0x4321fedc);
