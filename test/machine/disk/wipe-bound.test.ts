import { describe, expect, test } from "bun:test";
import { disk } from "./helpers.ts";
import { wipeBoundMs } from "../../../src/machine/disk/wipe-bound.ts";
import { parseHdparmIdentify } from "../../../src/machine/disk/ata-id.ts";
import { parseScsiOpcodes } from "../../../src/machine/disk/scsi-id.ts";
import { MICRON, SEAGATE_OPCODES, WD5000 } from "./drive-vectors.ts";

const TB = 1e12;
/** What the drives said when probed: nothing of their own (hdparm/sg_opcodes found no erase command). */
const plain = new Map([
  ["sda", {}],
  ["sdb", {}],
]);
const nvme = (name: string, controller: string) =>
  disk({ name, path: `/dev/${name}`, sizeBytes: TB, nvme: true, nvmeController: controller, rotational: false, discard: true, writeZeroes: true });

describe("wipe bound (what the watchdog is held for)", () => {
  test("a 4 TB rotating disk overwritten at the assumed 20 MiB/s: one full pass plus its tool calls, ~53 h (far over a fixed 2 h hold)", () => {
    // ceil(4e12 / 20 MiB/s) = 190,734,864 ms; + 4 tool calls around the method + 4 before, 30 s each.
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB })], "overwrite", { drives: plain })).toBe(190_734_864 + 120_000 + 120_000);
  });

  test("the same disk in fast mode: the metadata wipe's 5 min and the tool calls", () => {
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB })], "fast", { drives: plain })).toBe(300_000 + 120_000 + 120_000);
  });

  test("disks run in parallel: the slowest one counts", () => {
    expect(wipeBoundMs([disk({ sizeBytes: 4 * TB }), disk({ name: "sdb", path: "/dev/sdb", sizeBytes: TB })], "overwrite", { drives: plain })).toBe(190_734_864 + 240_000);
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
    expect(wipeBoundMs([disk({ sizeBytes: 1e9 })], "overwrite", { minRate: 1e8, toolTimeoutMs: 1000, drives: plain })).toBe(600_000 + 4_000 + 4_000);
  });

  test("a probed ATA drive is bounded by its own estimate: the WD5000BMVV's 138 min enhanced and normal erase, 1.5 x 138 min + 10 min each", () => {
    const d = disk({ sizeBytes: 500e9, model: "ATA WDC WD5000BMVV-11GNWS0" });
    const ata = parseHdparmIdentify(WD5000);
    const erase = 138 * 1.5 * 60_000 + 600_000;
    // Two security erases (4 + 6 tool calls each), then the host overwrite: ceil(500e9 / 20 MiB/s) = 23,841,858 ms.
    expect(wipeBoundMs([d], "overwrite", { drives: new Map([["sda", { ata }]]) })).toBe(2 * (erase + 10 * 30_000) + 23_841_858 + 120_000 + 120_000);
    // fast: 138 min is too long for fast, the metadata wipe alone.
    expect(wipeBoundMs([d], "fast", { drives: new Map([["sda", { ata }]]) })).toBe(300_000 + 120_000 + 120_000);
  });

  test("a SATA SSD with SANITIZE in fast mode: crypto scramble 10 min and block erase, not frozen would add its 2 min security erases", () => {
    const d = disk({ sizeBytes: 1e12, model: "ATA Micron_5300_MTFDDAK1T9TDS", rotational: false });
    const ata = parseHdparmIdentify(MICRON);
    // Frozen: no security erase; crypto 10 min, block max(10 min, 47,683,716 ms), 6 tool calls each, then metadata.
    expect(wipeBoundMs([d], "fast", { drives: new Map([["sda", { ata }]]) })).toBe(600_000 + 47_683_716 + 2 * 6 * 30_000 + 300_000 + 120_000 + 120_000);
  });

  test("an unprobed SAS disk is bounded as if it offered every SANITIZE and FORMAT UNIT; the Seagate as probed: crypto, then overwrite in overwrite mode", () => {
    const d = disk({ sizeBytes: TB, model: "SEAGATE ST10000NM0226" });
    const pass = 47_683_716;
    // fast: crypto 10 min + block erase (a full pass) + metadata.
    expect(wipeBoundMs([d], "fast")).toBe(600_000 + pass + 2 * 6 * 30_000 + 300_000 + 120_000 + 120_000);
    const scsi = parseScsiOpcodes(SEAGATE_OPCODES);
    expect(wipeBoundMs([d], "overwrite", { drives: new Map([["sda", { scsi }]]) })).toBe(600_000 + pass + 2 * 6 * 30_000 + pass + 120_000 + 120_000);
  });
});
