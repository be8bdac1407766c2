/**
 * The composition root (src/agent/compose.ts): the services it wires from the one
 * parsed configuration and the command's paths (the console, wipe mode and NIC
 * selectors reach the stages as their config: test/agent/run-flow.test.ts). The sysfs root (--sysfs) reaches every
 * stage that reads /sys; the disks and the BMC refuse off the agent's initramfs.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { compose } from "../../src/agent/compose.ts";
import { agentPaths } from "../../src/cli/agent-options.ts";
import { configFromCmdline } from "../../src/config/config.ts";
import { toAgentError } from "../../src/platform/errors.ts";
import { FilesystemLayoutSchema } from "../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { bmcVendor } from "../../src/machine/bmc/vendor.ts";
import { rootFsType } from "../../src/platform/fs/mount-table.ts";
import { silentLogger } from "../../src/platform/log/logger.ts";
import { captureContext } from "../helpers/capture.ts";

const CL = "METAL_BOOT_URL=https://[fd00::1]:8443/";
const paths = (sysRoot = "/sys") => ({ runDir: mkdtempSync(join(tmpdir(), "mh-root-")), sysRoot });

describe("the composition root", () => {
  test("the manufacturer the console default follows is sys_vendor under --sysfs, read when asked; none without it", async () => {
    const c = captureContext();
    const config = configFromCmdline(`${CL} METAL_WATCHDOG=0`);
    for (const vendor of ["QEMU\n", "Dell Inc.\n", undefined] as const) {
      const sys = mkdtempSync(join(tmpdir(), "mh-sys-"));
      const s = compose(c.ctx, agentPaths({ runDir: mkdtempSync(join(tmpdir(), "mh-root-")), sysfs: sys }), config, silentLogger());
      try {
        // Written after composing: the services read sysfs when a stage asks, not at composition.
        if (vendor !== undefined) {
          mkdirSync(join(sys, "class/dmi/id"), { recursive: true });
          writeFileSync(join(sys, "class/dmi/id/sys_vendor"), vendor);
        }
        expect([vendor, s.manufacturer()]).toEqual([vendor, vendor?.trim()]);
      } finally {
        await s.http.close();
        rmSync(sys, { recursive: true, force: true });
      }
    }
  });

  test("--run-dir and --sysfs become the token, handoff and sysfs paths the stages read (trailing slashes dropped)", async () => {
    const c = captureContext();
    const s = compose(c.ctx, agentPaths({ runDir: "/tmp/mh-run//", sysfs: "/tmp/mh-sysfs" }), configFromCmdline(`${CL} METAL_WATCHDOG=0`), silentLogger());
    try {
      expect([s.tokenFile, s.handoffFile, s.sysRoot]).toEqual(["/tmp/mh-run/token", "/tmp/mh-run/handoff.json", "/tmp/mh-sysfs"]);
    } finally {
      await s.http.close();
    }
  });

  test("on this host (not an initramfs) the composed wipe and layout refuse with disks_guarded (exit 63) naming what / is", async () => {
    const host = rootFsType(readFileSync("/proc/self/mounts", "utf8"));
    expect(["rootfs", "tmpfs", "ramfs"]).not.toContain(host); // tests never run from an initramfs
    const c = captureContext();
    const s = compose(c.ctx, paths(), configFromCmdline(`${CL} METAL_WATCHDOG=0`), silentLogger());
    try {
      for (const call of [() => s.disks.wipe("fast", silentLogger()), () => s.disks.layout(create(FilesystemLayoutSchema, { id: "x" }), silentLogger())]) {
        const e = toAgentError(
          await call().then(
            () => undefined,
            (x: unknown) => x,
          ),
        );
        expect([e.code, e.exitCode]).toEqual(["disks_guarded", 63]);
        expect(e.message).toContain(`/ is ${host}, not the agent's initramfs`);
      }
    } finally {
      await s.http.close();
    }
  });

  test("on this host the composed BMC writes no user (not the agent's initramfs)", async () => {
    const c = captureContext();
    const s = compose(c.ctx, paths(), configFromCmdline(`${CL} METAL_WATCHDOG=0`), silentLogger());
    try {
      expect(await s.bmc.superUser(bmcVendor("Supermicro")!, "x")).toEqual({ ok: false, notes: ["not running from the agent's initramfs: BMC users are not written"] });
    } finally {
      await s.http.close();
    }
  });
});
