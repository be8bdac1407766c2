/**
 * The composition root's disks stages touch disks only from the agent's initramfs:
 * anywhere else (an installed system, this test host) wipe and layout refuse before
 * anything is read or written.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentServices, rootFsType } from "../../src/cli/agent-options.ts";
import { create } from "@bufbuild/protobuf";
import { configFromCmdline } from "../../src/config/config.ts";
import { FilesystemLayoutSchema } from "../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { toAgentError } from "../../src/errors.ts";
import { silentLogger } from "../../src/platform/log/logger.ts";
import { captureContext } from "../helpers/capture.ts";

describe("disks only from the initramfs", () => {
  test("rootFsType reads the filesystem mounted at / (the last mount wins)", () => {
    expect(rootFsType("rootfs / rootfs rw 0 0\nproc /proc proc rw 0 0\n")).toBe("rootfs");
    expect(rootFsType("none / rootfs rw 0 0\ntmpfs / tmpfs rw 0 0\n")).toBe("tmpfs");
    expect(rootFsType("/dev/vda / ext4 rw,relatime 0 0\n")).toBe("ext4");
    expect(rootFsType("proc /proc proc rw 0 0\n")).toBeUndefined();
  });

  test("on this host (not an initramfs) wipe and layout refuse with wipe_failed (exit 60) naming what / is", async () => {
    const host = rootFsType(readFileSync("/proc/self/mounts", "utf8"));
    expect(["rootfs", "tmpfs", "ramfs"]).not.toContain(host); // tests never run from an initramfs
    const c = captureContext();
    const config = configFromCmdline("METAL_BOOT_URL=https://[fd00::1]/ METAL_WATCHDOG=0");
    const s = agentServices(c.ctx, { runDir: mkdtempSync(join(tmpdir(), "mh-disks-")) }, config, silentLogger());
    try {
      for (const call of [() => s.disks.wipe(silentLogger()), () => s.disks.layout(create(FilesystemLayoutSchema, { id: "x" }), silentLogger())]) {
        const e = toAgentError(
          await call().then(
            () => undefined,
            (x: unknown) => x,
          ),
        );
        expect(e.exitCode).toBe(60);
        expect(e.message).toContain(`/ is ${host}, not the agent's initramfs`);
      }
    } finally {
      await s.http.close();
    }
  });
});
