/**
 * The disk code's only contact with the machine: running a tool with a bound, reading
 * and writing byte ranges of a block device, the clock. Tests pass their own.
 */
import { mkdir, open, stat } from "node:fs/promises";
import { writeInRoot } from "../../platform/fs/root-file.ts";
import { runTool, type ToolResult } from "../../platform/sys/tool.ts";
import { realTimers, type Timers } from "../../platform/io/timers.ts";

export type { ToolResult } from "../../platform/sys/tool.ts";

/** Tool calls, block I/O, files, and time (Timers: the heartbeat and the sanitize poll run on it, so tests use a fake clock). */
export interface DiskIo extends Timers {
  /**
   * Runs argv[0] (looked up in TOOL_PATH) with a bound; never throws for a non-zero exit.
   * `stdin` is written to the tool and closed (how a secret reaches it without argv).
   */
  run(argv: readonly string[], opts: { readonly timeoutMs: number; readonly stdin?: string }): Promise<ToolResult>;
  read(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** Writes zeroes over [offset, offset+length) in `blockBytes` writes, then fsyncs; calls `progress` after each write. */
  writeZeroes(path: string, offset: number, length: number, blockBytes: number, progress?: (written: number) => void): Promise<void>;
  exists(path: string): Promise<boolean>;
  mkdir(path: string): Promise<void>;
  /** Writes `path` inside `root` (src/platform/fs/root-file.ts: resolved in the root, temp file + rename, never through a link or into a device). */
  writeFile(root: string, path: string, text: string, mode: number): Promise<void>;
  sleep(ms: number): Promise<void>;
}

/** Real tools first: the initramfs also has busybox applets of the same names (blkid, mkswap, mkfs.vfat). */
export const TOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
/** How long run() waits for a tool it killed at its bound. */
export const KILL_GRACE_MS = 5_000;

export function systemDiskIo(opts: { readonly killGraceMs?: number } = {}): DiskIo {
  const killGraceMs = opts.killGraceMs ?? KILL_GRACE_MS;
  return {
    async run(argv, opts) {
      // DM_DISABLE_UDEV: the initramfs runs no udev; LVM then creates its device nodes itself.
      return await runTool(argv, {
        timeoutMs: opts.timeoutMs,
        path: TOOL_PATH,
        env: { DM_DISABLE_UDEV: "1", LVM_SUPPRESS_FD_WARNINGS: "1" },
        killGraceMs,
        ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
      });
    },
    async read(path, offset, length) {
      const fh = await open(path, "r");
      try {
        const buf = new Uint8Array(length);
        let got = 0;
        while (got < length) {
          const r = await fh.read(buf, got, length - got, offset + got);
          if (r.bytesRead === 0) break;
          got += r.bytesRead;
        }
        return buf.subarray(0, got);
      } finally {
        await fh.close();
      }
    },
    async writeZeroes(path, offset, length, blockBytes, progress) {
      const fh = await open(path, "r+");
      try {
        const zero = new Uint8Array(Math.min(blockBytes, length));
        let done = 0;
        while (done < length) {
          const n = Math.min(zero.length, length - done);
          const r = await fh.write(zero, 0, n, offset + done);
          if (r.bytesWritten <= 0) throw new Error(`short write at byte ${offset + done}`);
          done += r.bytesWritten;
          progress?.(done);
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
    },
    exists: (path) =>
      stat(path).then(
        () => true,
        () => false,
      ),
    mkdir: async (path) => void (await mkdir(path, { recursive: true })),
    async writeFile(root, path, text, mode) {
      writeInRoot(root, path, text, mode, 0o755);
    },
    now: realTimers.now,
    after: realTimers.after,
    sleep: (ms) => Bun.sleep(ms),
  };
}
