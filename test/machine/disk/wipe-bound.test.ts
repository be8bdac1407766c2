import { describe, expect, test } from "bun:test";
import { disk } from "./helpers.ts";
import { wipeBoundMs } from "../../../src/machine/disk/wipe-bound.ts";

const TB = 1e12;
const nvme = (name: string, controller: string) =>
  disk({ name, path: `/dev/${name}`, sizeBytes: TB, nvme: true, nvmeController: controller, rotational: false, discard: true, writeZeroes: true });

describe("wipe bound (what the watchdog is held for)", () => {
  test("a 4 TB rotating disk overwritten at the assumed 20 MiB/s: one full pass plus its tool calls, ~53 h (far over a fixed 2 h hold)", () => {
    // ceil(4e12 / 20 MiB/s) = 190,734,864 ms; + 4 tool calls around the method + 4 before, 30 s each.
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB })], "overwrite")).toBe(190_734_864 + 120_000 + 120_000);
  });

  test("the same disk in fast mode: the metadata wipe's 5 min and the tool calls", () => {
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB })], "fast")).toBe(300_000 + 120_000 + 120_000);
  });

  test("disks run in parallel: the slowest one counts", () => {
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB }), disk({ name: "sdb", path: "/dev/sdb", sizeBytes: TB })], "overwrite")).toBe(190_734_864 + 240_000);
  });

  test("NVMe is bounded as if the controller advertised every method; namespaces of one controller add up, another controller runs beside them", () => {
    // Per 1 TB namespace: 4 methods of 10 min, 3 full passes of ceil(1e12 / 20 MiB/s) = 47,683,716 ms, metadata 5 min, 8 x 4 tool calls.
    const one = 4 * 600_000 + 3 * 47_683_716 + 300_000 + 8 * 120_000;
    expect(wipeBoundMs([nvme("nvme0n1", "nvme0")], "fast")).toBe(one + 120_000);
    expect(wipeBoundMs([nvme("nvme0n1", "nvme0"), nvme("nvme0n2", "nvme0"), nvme("nvme1n1", "nvme1")], "fast")).toBe(2 * one + 120_000);
  });

  test("a read-only disk (refused) and no disks at all: only the calls before the methods", () => {
    expect(wipeBoundMs([disk({ readOnly: true })], "overwrite")).toBe(120_000);
    expect(wipeBoundMs([], "fast")).toBe(120_000);
  });

  test("the rate and the tool bound are parameters", () => {
    expect(wipeBoundMs([disk({ sizeBytes: 1e9 })], "overwrite", { minRate: 1e8, toolTimeoutMs: 1000 })).toBe(600_000 + 4_000 + 4_000);
  });
});
