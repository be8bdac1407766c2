/**
 * The bun:ffi path of kexec_file_load against the real kernel, safely: in an
 * unprivileged user namespace the call is refused with EPERM (what lockdown-like
 * refusals look like to the agent), or ENOSYS where the kernel has no kexec_file_load
 * (this machine's 6.18: CONFIG_KEXEC_FILE is not set); open(2) errors come back as -errno.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { release } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { KEXEC_REFUSED } from "../../../src/install/kexec.ts";

/** Whether the running kernel has kexec_file_load: EPERM (1) in a user namespace if so, ENOSYS (38) if not. */
function runningKernelHasKexecFile(): boolean | undefined {
  const text = existsSync("/proc/config.gz")
    ? gunzipSync(readFileSync("/proc/config.gz")).toString()
    : existsSync(`/boot/config-${release()}`)
      ? readFileSync(`/boot/config-${release()}`, "utf8")
      : undefined;
  return text === undefined ? undefined : /^CONFIG_KEXEC_FILE=y$/m.test(text);
}

const userns = spawnSync("unshare", ["--user", "--map-root-user", "true"]).status === 0;
const why = "needs unshare --user (unprivileged user namespaces)";
if (!userns && process.env.CI === "true") {
  test("kexec ffi prerequisites", () => {
    throw new Error(`cannot run under CI: ${why}`);
  });
}

describe.skipIf(!userns)(`kexec_file_load through bun:ffi${userns ? "" : ` (skipped: ${why})`}`, () => {
  test("refused in a user namespace (EPERM, or ENOSYS on a kernel without kexec_file_load), a refusal the agent reboots on; a missing file is ENOENT, a FIFO refused at once", () => {
    const r = spawnSync("unshare", ["--user", "--map-root-user", process.execPath, join(import.meta.dir, "kexec-ffi-driver.ts")], { encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { fd: number; missing: { error: string }; fifo: { error: string }; fifoMs: number; load: number };
    expect(out.fd).toBeGreaterThan(2);
    expect(out.missing).toEqual({ error: "open /nonexistent/vmlinuz: ENOENT" });
    expect(out.fifo.error).toContain("expected a regular file, found a FIFO");
    expect(out.fifoMs).toBeLessThan(1000);
    const has = runningKernelHasKexecFile();
    if (has === undefined) expect([1, 38]).toContain(out.load);
    else expect(out.load).toBe(has ? 1 : 38);
    expect(KEXEC_REFUSED.has(out.load)).toBe(true);
  });

  test("the driver refuses to run outside a user namespace", () => {
    const r = spawnSync(process.execPath, [join(import.meta.dir, "kexec-ffi-driver.ts")], { encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("refusing");
  });
});
