/**
 * A stage is tested with the slice of the services it declares and nothing else: no
 * stand-ins, no whole `Services`. Each call below passes an object of exactly the stage's
 * type (`LayoutServices`, `RebootServices`, `LldpServices`), built from the same fakes the
 * flow test sums (flow-fakes.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { type LayoutServices, layout } from "../../src/agent/layout-stage.ts";
import { type LldpServices, lldp } from "../../src/agent/lldp-stage.ts";
import { plannedReboot, type RebootServices } from "../../src/agent/reboot-stage.ts";
import { MachineAllocationSchema } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { FilesystemLayoutSchema } from "../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { LINUX_REBOOT_CMD_RESTART } from "../../src/platform/sys/reboot-syscall.ts";
import { diskFakes, kexecFakes, networkFakes, newSeen, RecordingOps } from "./flow-fakes.ts";

const base = mkdtempSync(join(tmpdir(), "mh-slice-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const runDir = () => mkdtempSync(join(base, "run-"));

const seen = newSeen;
const quiet = () => {
  const lines: Record<string, unknown>[] = [];
  const secrets = new SecretSet();
  return { lines, secrets, log: createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets }) };
};

describe("layout with { log, disks } alone", () => {
  test("builds the allocation's layout and says whether it has RAID", async () => {
    const run = runDir();
    const got = seen();
    const s: LayoutServices = { log: quiet().log, ...diskFakes(run, got) };
    const fl = create(FilesystemLayoutSchema, { id: "c1-raid", raid: [{ arrayName: "/dev/md1", devices: ["/dev/sda2", "/dev/sdb2"], level: 1 }] });
    const target = await layout(create(MachineAllocationSchema, { uuid: "m1", filesystemLayout: fl }), s);
    expect(target).toMatchObject({ root: join(run, "target"), rootUuid: "0a1b2c3d-0000-4000-8000-00000000f00d", raidEnabled: true });
    expect(got.layouts.map((l) => l.id)).toEqual(["c1-raid"]);
  });

  test("an allocation without a layout is refused by name and nothing is written", async () => {
    const got = seen();
    const s: LayoutServices = { log: quiet().log, ...diskFakes(runDir(), got) };
    const e = await layout(create(MachineAllocationSchema, { uuid: "m1" }), s).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("layout_refused");
    expect((e as AgentError).message).toContain("the allocation of m1 has no filesystemLayout");
    expect(got.layouts).toEqual([]);
  });
});

describe("plannedReboot with { ops, log, kexecSys } alone", () => {
  test("logs flushed and the watchdog closed before sync and reboot(2) RESTART", async () => {
    const run = runDir();
    const got = seen();
    const { log, secrets } = quiet();
    const ops = new RecordingOps({ secrets, statusPath: join(run, "status.json") });
    ops.sysLog = got.sys;
    const s: RebootServices = { ops, log, ...kexecFakes(got) };
    await plannedReboot({ kind: "planned_reboot", at: "2026-01-02T03:00:00.000Z", reason: "weekly" }, s);
    expect(got.sys).toEqual(["before-reboot planned reboot", "drain", "sync", "reboot RESTART"]);
  });

  test("a refused reboot(2) is exit `reboot` naming the errno", async () => {
    const run = runDir();
    const got = seen();
    const { log, secrets } = quiet();
    const k = kexecFakes(got).kexecSys;
    const s: RebootServices = {
      ops: new RecordingOps({ secrets, statusPath: join(run, "status.json") }),
      log,
      kexecSys: { ...k, reboot: (cmd) => (cmd === LINUX_REBOOT_CMD_RESTART ? 1 : 0) },
    };
    const e = await plannedReboot({ kind: "planned_reboot", at: "2026-01-02T03:00:00.000Z", reason: "weekly" }, s).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("reboot");
    expect((e as AgentError).message).toBe("planned reboot: reboot(2) failed: EPERM");
  });
});

describe("lldp with { log, selectNics, startLldp } alone", () => {
  test("listens on the NICs METAL_NICS selects, named by the machine", async () => {
    const got = seen();
    const { log } = quiet();
    const { selectNics, startLldp } = networkFakes(got);
    const s: LldpServices = { log, selectNics, startLldp };
    const session = lldp({ nics: [{ kind: "name", name: "eth0" }] }, "m1", s);
    expect(got.nicSelectors).toEqual([[{ kind: "name", name: "eth0" }]]);
    expect(got.lldpName).toEqual(["m1"]);
    expect([...(await session.waitForSwitches(2, 1000)).keys()]).toEqual(["eth0"]);
  });
});
