import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCpuinfo } from "../../../src/machine/inventory/cpuinfo.ts";

const FIX = join(import.meta.dir, "../../fixtures/inventory");
const read = (f: string) => readFileSync(join(FIX, f), "utf8");

describe("parseCpuinfo", () => {
  test("two sockets with two hyper-threaded cores each are two packages of 2 cores / 4 threads", () => {
    expect(parseCpuinfo(read("proc/cpuinfo"))).toEqual([
      { vendor: "GenuineIntel", model: "Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz", cores: 2, threads: 4 },
      { vendor: "GenuineIntel", model: "Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz", cores: 2, threads: 4 },
    ]);
  });

  test("the recorded VM cpuinfo is one package", () => {
    expect(parseCpuinfo(read("cpuinfo-epyc-vm.txt"))).toEqual([{ vendor: "AuthenticAMD", model: "AMD EPYC", cores: 2, threads: 2 }]);
  });

  test("arm64 without physical id: one package, every logical CPU a core, vendor from the implementer", () => {
    expect(parseCpuinfo(read("cpuinfo-arm64.txt"))).toEqual([{ vendor: "0x41", model: "", cores: 2, threads: 2 }]);
  });

  test("empty input gives no CPUs", () => {
    expect(parseCpuinfo("")).toEqual([]);
  });
});
