import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { toAgentError } from "../../../src/platform/errors.ts";
import { FilesystemLayoutSchema } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { refuseOutsideInitramfs } from "../../../src/machine/disk/guard.ts";
import { machineDisks } from "../../../src/machine/disk/machine-disks.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";

const refused = async (p: Promise<unknown>) =>
  toAgentError(
    await p.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );

describe("disks only from the initramfs", () => {
  test("from the initramfs nothing is refused; elsewhere disks_guarded (exit 63) names the act and what / is", () => {
    const thrown = (fn: () => void) => {
      try {
        fn();
      } catch (e) {
        return toAgentError(e);
      }
      return undefined;
    };
    expect(thrown(() => refuseOutsideInitramfs("wipe the disks", { initramfs: true, type: "rootfs" }))).toBeUndefined();
    const e = thrown(() => refuseOutsideInitramfs("wipe the disks", { initramfs: false, type: "ext4" }));
    expect([e?.code, e?.exitCode, e?.details.rootFs]).toEqual(["disks_guarded", 63, "ext4"]);
    expect(e?.message).toStartWith("refusing to wipe the disks: / is ext4, not the agent's initramfs");
    expect(thrown(() => refuseOutsideInitramfs("x", { initramfs: false, type: undefined }))?.message).toContain("/ is unknown (no /proc/self/mounts)");
  });

  test("the machine's disks stages ask what / is before each stage and refuse before reading any disk", async () => {
    let asked = 0;
    const disks = machineDisks({ sysRoot: "/nonexistent-sysfs", version: "v0", rootFs: () => (asked++, { initramfs: false, type: "xfs" }) });
    const w = await refused(disks.wipe("fast", silentLogger()));
    const l = await refused(disks.layout(create(FilesystemLayoutSchema, { id: "x" }), silentLogger()));
    expect([w.code, l.code, asked]).toEqual(["disks_guarded", "disks_guarded", 2]);
    expect(w.message).toStartWith("refusing to wipe the disks: / is xfs");
    expect(l.message).toStartWith("refusing to partition the disks: / is xfs");
  });
});
