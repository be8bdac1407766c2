import { describe, expect, test } from "bun:test";
import { AgentError } from "../../src/platform/errors.ts";
import { keepSet, mountsBelow } from "../../src/install/clean.ts";
import { isBreak, parseContentRange } from "../../src/install/image.ts";
import { ProgressMeter, formatProgress } from "../../src/install/progress.ts";

describe("image install parts", () => {
  test("Content-Range", () => {
    expect(parseContentRange("bytes 100-199/200")).toEqual({ start: 100, total: 200 });
    expect(parseContentRange("bytes 5-9/*")).toEqual({ start: 5, total: undefined });
    expect(parseContentRange("items 1-2/3")).toBeUndefined();
    expect(parseContentRange(undefined)).toBeUndefined();
  });

  test("breaks worth a retry: resets, short bodies, timeouts; not TLS or a plain status error", () => {
    expect(isBreak(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(true);
    expect(isBreak(Object.assign(new Error("x"), { code: "UND_ERR_BODY_TIMEOUT" }))).toBe(true);
    expect(isBreak(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }))).toBe(true);
    // The message is not read: an error without a code is not a break.
    expect(isBreak(new Error("other side closed"))).toBe(false);
    expect(isBreak(new AgentError("tls", "bad cert"))).toBe(false);
    expect(isBreak(new AgentError("image_download", "answered 404"))).toBe(false);
  });

  test("progress: one line per interval, rate and ETA from the last interval, a forced last line", () => {
    const m = new ProgressMeter(0, 5_000);
    expect(m.update(1 << 20, 100 << 20, 1_000)).toBeUndefined();
    const l = m.update(50 << 20, 100 << 20, 5_000)!;
    expect(l.rate).toBe(Math.round((50 << 20) / 5));
    expect(l.etaSeconds).toBe(5);
    expect(l.percent).toBe(50);
    expect(formatProgress(l)).toBe("image: 50.0 MiB of 100.0 MiB (50%) at 10.0 MiB/s, ETA 5 s");
    expect(m.update(51 << 20, 100 << 20, 5_100)).toBeUndefined();
    expect(m.update(100 << 20, 100 << 20, 6_000, true)!.etaSeconds).toBe(0);
  });

  test("cleaning keeps mount points below the root and the directories leading to them", () => {
    const info = [
      "36 35 8:1 / / rw - ext4 /dev/sda1 rw",
      "40 36 8:2 / /mnt/target rw - ext4 /dev/sdb2 rw",
      "41 40 8:1 / /mnt/target/boot/efi rw - vfat /dev/sdb1 rw",
      "42 40 0:5 / /mnt/target/var\\040log rw - ext4 /dev/sdb3 rw",
    ].join("\n");
    const mounts = mountsBelow(info, "/mnt/target/");
    expect(mounts).toEqual(["/mnt/target/boot/efi", "/mnt/target/var log"]);
    expect([...keepSet("/mnt/target", mounts)].sort()).toEqual(["/mnt/target/boot", "/mnt/target/boot/efi", "/mnt/target/var log"]);
  });
});
