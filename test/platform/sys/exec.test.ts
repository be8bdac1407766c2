import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execNextStage } from "../../../src/agent/handoff/exec.ts";
import { linuxSystem } from "../../../src/init/linux-system.ts";
import { errnoName, errnoOfError } from "../../../src/platform/sys/errno.ts";

describe("execve through src/platform/sys", () => {
  test("a failed exec names the kernel's reason (ENOEXEC for an executable file that is no program)", () => {
    const dir = mkdtempSync(join(tmpdir(), "mh-exec-"));
    try {
      const f = join(dir, "not-a-program");
      writeFileSync(f, new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]));
      chmodSync(f, 0o755);
      let err: unknown;
      try {
        execNextStage(f, [], []);
      } catch (e) {
        err = e;
      }
      expect((err as { code?: string }).code).toBe("handoff");
      expect((err as Error).message).toContain(`execve failed: ENOEXEC`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("errno names come from one table, with a fallback for unknown numbers", () => {
    expect(errnoName(16)).toBe("EBUSY");
    expect(errnoName(18)).toBe("EXDEV");
    expect(errnoName(9999)).toBe("errno 9999");
  });

  test("a failed node:fs call gives its errno by the same table (PID 1's mkdir and module open report it)", () => {
    const dir = mkdtempSync(join(tmpdir(), "mh-errno-"));
    try {
      const file = join(dir, "file");
      writeFileSync(file, "");
      const sys = linuxSystem();
      expect(errnoName(sys.mkdir(join(file, "sub"), 0o755))).toBe("ENOTDIR");
      expect(errnoName(sys.finitModule(join(dir, "missing.ko")))).toBe("ENOENT");
      expect(sys.mkdir(join(dir, "a/b"), 0o755)).toBe(0);
      expect(errnoOfError({ code: "EROFS" })).toBe(30);
      expect(errnoName(errnoOfError({ code: "ENOSUCHCODE" }))).toBe("EIO");
      expect(errnoName(errnoOfError("not an error"))).toBe("EIO");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
