import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { AgentError } from "../../../src/platform/errors.ts";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import type { ToolResult } from "../../../src/machine/disk/io.ts";
import { fromJsonString } from "@bufbuild/protobuf";
import { FilesystemLayoutSchema } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { applyLayout, parseBlkidExport, renderFstab, unmountLayout, writeFstab } from "../../../src/machine/disk/layout-run.ts";
import { captureLogger } from "./log.ts";
import { disk, fakeMachine } from "./helpers.ts";

const single = fromJsonString(FilesystemLayoutSchema, readFileSync(new URL("../../fixtures/disk/layouts/c1-xlarge-single.json", import.meta.url), "utf8"));
const sda = disk({ name: "sda", path: "/dev/sda", sizeBytes: 64 * 1024 * MIB });
const uuidOf = (dev: string) => `uuid-${dev.split("/").at(-1)}`;
const blkid = (argv: readonly string[]): ToolResult | undefined =>
  argv[1] === "-o" ? { code: 0, stdout: `DEVNAME=${argv.at(-1)}\nUUID=${uuidOf(argv.at(-1) as string)}\nTYPE=ext4\n`, stderr: "", timedOut: false } : undefined;

describe("applyLayout", () => {
  test("runs every step in order, logs each, writes disk.json (0600) and returns the root UUID and fstab by UUID", async () => {
    const { io, calls, files } = fakeMachine({}, { blkid });
    const { log, lines } = captureLogger();
    const a = await applyLayout(single, [sda], { io: { ...io, exists: async () => true }, log, targetRoot: "/rootfs", version: "v-test" });
    expect(a.rootUuid).toBe("uuid-sda2");
    expect(calls.map((c) => c[0])).toEqual(["wipefs", "sgdisk", "blockdev", "mkfs.vfat", "mkfs.ext4", "mkfs.ext4", "mount", "mount", "mount", "blkid", "blkid", "blkid"]);
    expect(lines.filter((l) => l.event === "disk.layout.step").length).toBe(15);
    expect(lines.find((l) => l.event === "disk.layout.done")).toMatchObject({ rootUuid: "uuid-sda2" });
    expect(a.fstab).toBe(
      '# created by metal-hammer: "v-test"\n' +
        "UUID=uuid-sda2 / ext4 defaults 0 1\n" +
        "tmpfs /tmp tmpfs defaults,noatime,nosuid,nodev,noexec,mode=1777,size=512M 0 0\n" +
        "UUID=uuid-sda1 /boot/efi vfat defaults 0 2\n" +
        "UUID=uuid-sda3 /var/lib ext4 defaults 0 2\n",
    );
    const dj = files.get("/rootfs/etc/metal/disk.json")!;
    expect(dj.mode).toBe(0o600);
    expect(JSON.parse(dj.text)).toEqual({
      Device: "legacy",
      Partitions: [
        { Label: "root", Filesystem: "ext4", Properties: { UUID: "uuid-sda2" } },
        { Label: "efi", Filesystem: "vfat", Properties: { UUID: "uuid-sda1" } },
        { Label: "varlib", Filesystem: "ext4", Properties: { UUID: "uuid-sda3" } },
      ],
    });
    await writeFstab(a, io);
    expect(files.get("/rootfs/etc/fstab")).toEqual({ text: a.fstab, mode: 0o644 });
    expect(a.mounts).toEqual(["/rootfs", "/rootfs/boot/efi", "/rootfs/var/lib"]);
    await unmountLayout(a, io);
    expect(calls.filter((c) => c[0] === "umount").map((c) => c[1])).toEqual(["/rootfs/var/lib", "/rootfs/boot/efi", "/rootfs"]);
  });

  test("a failing step stops the layout with layout_failed naming the step and the tool's message; later steps never run", async () => {
    const { io, calls } = fakeMachine({}, { sgdisk: () => ({ code: 4, stdout: "", stderr: "Could not create partition 3 from 10487808 to 2048", timedOut: false }) });
    const { log } = captureLogger();
    const err = (await applyLayout(single, [sda], { io: { ...io, exists: async () => true }, log, targetRoot: "/rootfs", version: "v" }).catch((e) => e)) as AgentError;
    expect(err.code).toBe("layout_failed");
    expect(err.exitCode).toBe(62);
    expect(err.message).toMatch(/^layout step 2\/15 \(partition \/dev\/sda\) failed: sgdisk --clear .* exited 4: Could not create partition 3/);
    expect(calls.some((c) => (c[0] ?? "").startsWith("mkfs"))).toBe(false);
  });

  test("a partition that never appears fails within its bound", async () => {
    const { io } = fakeMachine({});
    const { log } = captureLogger();
    const err = (await applyLayout(single, [sda], { io, log, targetRoot: "/rootfs", version: "v" }).catch((e) => e)) as AgentError;
    expect(err.code).toBe("layout_failed");
    expect(err.message).toMatch(/layout step 4\/15 \(partition \/dev\/sda1 appears\) failed: \/dev\/sda1 did not appear within 10 s/);
  });

  test("a layout that does not fit is refused before any command runs", async () => {
    const { io, calls } = fakeMachine({});
    const { log } = captureLogger();
    const err = (await applyLayout(single, [disk({ sizeBytes: 1024 * MIB })], { io, log, targetRoot: "/rootfs", version: "v" }).catch((e) => e)) as AgentError;
    expect(err.code).toBe("layout_refused");
    expect(calls).toEqual([]);
  });

  test("blkid export parsing and an fstab without UUIDs for tmpfs", () => {
    expect(parseBlkidExport("DEVNAME=/dev/sda1\nUUID=E562-31F0\nTYPE=vfat\nPARTLABEL=EFI\\ System\n")).toMatchObject({ UUID: "E562-31F0", TYPE: "vfat" });
    expect(renderFstab([{ device: "tmpfs", format: "tmpfs", path: "/tmp", label: "", mountOptions: [], target: undefined, uuid: undefined }], "x")).toContain(
      "tmpfs /tmp tmpfs defaults 0 0",
    );
  });
});
