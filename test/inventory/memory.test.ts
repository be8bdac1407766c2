import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { memTotalBytes } from "../../src/inventory/memory.ts";

describe("memTotalBytes (systeminformation mem)", () => {
  test("is MemTotal of /proc/meminfo in bytes", async () => {
    const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]);
    expect(kib).toBeGreaterThan(0);
    expect(await memTotalBytes()).toBe(kib * 1024);
  });
});
