/**
 * Calls kexec_file_load(2) through src/platform/sys/kexec-syscall.ts for real, but only inside an
 * unprivileged user namespace (`unshare --user --map-root-user`), where the kernel
 * answers EPERM before looking at the arguments (kernel/kexec_file.c: CAP_SYS_BOOT in
 * the initial user namespace). Refuses to run anywhere else. Prints the result as JSON.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linuxKexec, kexecArgs } from "../../../src/platform/sys/kexec-syscall.ts";

const uidMap = readFileSync("/proc/self/uid_map", "utf8").trim().split(/\s+/);
if (uidMap[0] === "0" && uidMap[1] === "0" && uidMap[2] === "4294967295") {
  process.stderr.write("refusing: this is the initial user namespace (run me under unshare --user)\n");
  process.exit(2);
}
const k = linuxKexec.openRead("/", process.execPath);
const fd = "fd" in k ? k.fd : -1;
const missing = linuxKexec.openRead("/", "/nonexistent/vmlinuz");
// A FIFO as the kernel (an image can ship one): refused at once, the event loop not frozen.
const dir = mkdtempSync(join(tmpdir(), "kexec-fifo-"));
spawnSync("mkfifo", [join(dir, "vmlinuz")]);
const t0 = performance.now();
const fifo = linuxKexec.openRead(dir, "/vmlinuz");
const fifoMs = performance.now() - t0;
rmSync(dir, { recursive: true, force: true });
const load = fd >= 0 ? linuxKexec.kexecFileLoad(kexecArgs(fd, undefined, "console=ttyS0")) : -1;
if (fd >= 0) linuxKexec.close(fd);
process.stdout.write(JSON.stringify({ fd, missing, fifo, fifoMs, load }) + "\n");
