import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { AgentError } from "../../../src/platform/errors.ts";
import { create, fromJsonString } from "@bufbuild/protobuf";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { FilesystemLayoutSchema, GPTType } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { applyAllocationLayout, wipeMachineDisks } from "../../../src/machine/disk/disk-stages.ts";
import { captureLogger } from "./log.ts";
import { fakeMachine } from "./helpers.ts";

const SYS = new URL("../../fixtures/disk/sys", import.meta.url).pathname;

describe("stage functions on a sysfs tree", () => {
  test("wipeMachineDisks reads the inventory, logs it, wipes the chosen disks and names a read-only one", async () => {
    const vda = { bytes: new Uint8Array(2 * MIB), signatures: ["gpt"], partitions: [] };
    const { io } = fakeMachine({ "/dev/vda": vda, "/dev/vdc": { bytes: new Uint8Array(2 * MIB), signatures: [], partitions: [] } });
    const { log, lines } = captureLogger();
    // vda's sysfs size is 1 GiB; the fake device holds only its first MiBs, enough for the discard path.
    const report = await wipeMachineDisks({ log, sysRoot: SYS, io, mode: "fast", only: ["vda"] });
    expect(report.disks.map((d) => [d.disk, d.outcome])).toEqual([["vda", "wiped"]]);
    expect(lines.find((l) => l.event === "disk.inventory")).toMatchObject({ disks: [{ name: "vda", discard: true, serial: "lab-vda" }] });
    const err = (await wipeMachineDisks({ log, sysRoot: SYS, io, mode: "fast", only: ["vdc"] }).catch((e) => e)) as AgentError;
    expect([err.code, err.exitCode]).toEqual(["wipe_failed", 60]);
    expect(err.message).toContain("/dev/vdc");
  });

  test("applyAllocationLayout takes the generated FilesystemLayout, plans against the inventory and returns the root UUID", async () => {
    const layout = fromJsonString(FilesystemLayoutSchema, readFileSync(new URL("../../fixtures/disk/layouts/c1-xlarge-single.json", import.meta.url), "utf8"));
    const { io } = fakeMachine({}, { blkid: (argv) => ({ code: 0, stdout: `UUID=u-${String(argv.at(-1)).slice(5)}\n`, stderr: "", timedOut: false }) });
    const { log } = captureLogger();
    const a = await applyAllocationLayout(layout, { log, sysRoot: SYS, io: { ...io, exists: async () => true }, version: "t", targetRoot: "/t" });
    expect(a.rootUuid).toBe("u-sda2");
    const bad = (await applyAllocationLayout(create(FilesystemLayoutSchema, { disks: [{ device: "/dev/sda", partitions: [{ gptType: GPTType.GPT_TYPE_BOOT }] }] }), {
      log,
      sysRoot: SYS,
      io,
      version: "t",
    }).catch((e) => e)) as AgentError;
    expect([bad.code, bad.exitCode]).toEqual(["layout_refused", 61]);
  });
});
