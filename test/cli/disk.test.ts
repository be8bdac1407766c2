import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

const SYS = join(import.meta.dir, "../fixtures/disk/sys");
const layout = (n: string) => readFileSync(join(import.meta.dir, `../fixtures/disk/layouts/${n}.json`), "utf8");

describe("metal-hammer disk", () => {
  test("list --json gives every disk's facts from sysfs", async () => {
    const c = captureContext();
    expect(await runCli(["disk", "list", "--json", "--sysfs", SYS], c.ctx)).toBe(0);
    const v = JSON.parse(c.out()) as { name: string; readOnly: boolean; nvme: boolean }[];
    expect(v.map((d) => d.name)).toEqual(["nvme0n1", "sda", "sdb", "vda", "vdc"]);
    expect(v.find((d) => d.name === "vdc")!.readOnly).toBe(true);
  });

  test("plan prints the commands for a layout file without running them", async () => {
    const c = captureContext({ "/l.json": layout("c1-xlarge-single") });
    expect(await runCli(["disk", "plan", "/l.json", "--sysfs", SYS, "--target", "/mnt/t"], c.ctx)).toBe(0);
    const lines = c.out().trim().split("\n");
    expect(lines[1]).toMatch(/^sgdisk --clear --new=1:0:\+500M .* \/dev\/sda$/);
    expect(lines.at(-1)).toBe("mount -t ext4 /dev/sda3 /mnt/t/var/lib");
  });

  test("plan takes an allocation that carries the layout as filesystemLayout", async () => {
    const c = captureContext({ "/a.json": JSON.stringify({ hostname: "m1", filesystemLayout: JSON.parse(layout("c1-xlarge-single")) }) });
    expect(await runCli(["disk", "plan", "/a.json", "--json", "--sysfs", SYS], c.ctx)).toBe(0);
    expect(JSON.parse(c.out()).lines).toContain("mkfs.ext4 -F -L root /dev/sda2");
  });

  test("a layout that does not fit exits 61 naming the disk", async () => {
    const c = captureContext({ "/l.json": layout("s2-xlarge-raid1") });
    expect(await runCli(["disk", "plan", "/l.json", "--sysfs", SYS], c.ctx)).toBe(61);
    expect(c.err()).toMatch(/refused: disk \/dev\/sdb: the partitions need 50501 MiB but the disk has 14662 MiB usable/);
  });

  test("a layout file that is not protojson exits 61; a missing one exits 2", async () => {
    const c = captureContext({ "/bad.json": '{"disks":[{"device":"/dev/sda","partitions":[{"gptType":"ef00"}]}]}' });
    expect(await runCli(["disk", "plan", "/bad.json", "--sysfs", SYS], c.ctx)).toBe(61);
    expect(c.err()).toMatch(/field disks\[0\]\.partitions\[0\]\.gptType/);
    expect(await runCli(["disk", "plan", "/missing.json", "--sysfs", SYS], captureContext().ctx)).toBe(2);
  });

  test("wipe and apply refuse to run without --yes", async () => {
    const c = captureContext({ "/l.json": layout("c1-xlarge-single") });
    expect(await runCli(["disk", "wipe", "--sysfs", SYS], c.ctx)).toBe(2);
    expect(await runCli(["disk", "apply", "/l.json", "--sysfs", SYS], c.ctx)).toBe(2);
    expect(c.err()).toContain("add --yes");
    expect(await runCli(["disk", "wipe", "--mode", "slow", "--yes", "--sysfs", SYS], c.ctx)).toBe(2);
  });

  test("wipe --json of a read-only disk exits 60 and still prints the report (no tool runs: no method can erase it)", async () => {
    const c = captureContext();
    expect(await runCli(["disk", "wipe", "--yes", "--json", "--disks", "vdc", "--sysfs", SYS], c.ctx)).toBe(60);
    const report = JSON.parse(c.out()) as { disks: { disk: string; outcome: string; attempts: unknown[] }[] };
    expect(report.disks.map((d) => [d.disk, d.outcome, d.attempts.length])).toEqual([["vdc", "failed", 0]]);
    expect(c.err()).toMatch(/wipe failed: \/dev\/vdc \(no method\): the device is read-only/);
  });
});
