import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { memTotalBytes, memTotalOf } from "../../../src/machine/inventory/memory.ts";

describe("memTotalBytes (systeminformation mem)", () => {
  test("is MemTotal of /proc/meminfo in bytes", async () => {
    const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]);
    expect(kib).toBeGreaterThan(0);
    expect(await memTotalBytes()).toBe(kib * 1024);
  });

  test("another procfs root is read from its own meminfo (a captured machine, a fixture); MemTotal in bytes, else undefined", async () => {
    expect(await memTotalBytes(new URL("../../fixtures/inventory/proc", import.meta.url).pathname)).toBe(24683620 * 1024);
    expect(await memTotalBytes("/nonexistent-proc-root")).toBeUndefined();
    expect(memTotalOf("MemFree: 1 kB\n")).toBeUndefined();
    expect(memTotalOf("MemTotal:       2048 kB\n")).toBe(2048 * 1024);
  });
});
