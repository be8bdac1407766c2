/** Disk facts and a fake machine for the disk tests. */
import type { DiskFacts } from "../../../src/machine/disk/disk-facts.ts";

export function disk(over: Partial<DiskFacts> = {}): DiskFacts {
  return {
    name: "sda",
    path: "/dev/sda",
    sizeBytes: 4 * 2 ** 30,
    logicalBlockSize: 512,
    rotational: true,
    discard: false,
    discardGranularity: 0,
    discardMaxBytes: 0,
    discardZeroesData: false,
    writeZeroes: false,
    nvme: false,
    nvmeController: undefined,
    removable: false,
    readOnly: false,
    model: "",
    serial: "",
    partitions: [],
    holders: [],
    ...over,
  };
}

import type { DiskIo, ToolResult } from "../../../src/machine/disk/io.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";

/** One fake block device: its bytes, the signatures tools would find, its partitions. */
export interface FakeDev {
  bytes: Uint8Array;
  signatures: string[];
  partitions: string[];
  /** The device accepts discard but keeps the data (QEMU's discard=ignore; some cheap SSDs). */
  ignoresDiscard?: boolean;
  /** Every tool call on it fails like EROFS. */
  readOnly?: boolean;
}

/** A fake machine: tool calls act on FakeDevs by path; every argv is recorded. */
export function fakeMachine(
  devs: Record<string, FakeDev>,
  over: Partial<Record<string, (argv: readonly string[], opts: { readonly timeoutMs: number; readonly stdin?: string }) => ToolResult | undefined>> = {},
) {
  const calls: string[][] = [];
  const files = new Map<string, { text: string; mode: number }>();
  const dirs = new Set<string>();
  const time = fakeTimers();
  const ok = (stdout = ""): ToolResult => ({ code: 0, stdout, stderr: "", timedOut: false });
  const io: DiskIo = {
    async run(argv, opts) {
      calls.push([...argv]);
      const hook = over[argv[0] as string]?.(argv, opts);
      if (hook) return hook;
      const path = argv.at(-1) as string;
      const d = devs[path] ?? Object.values(devs).find(() => false);
      const parent = Object.entries(devs).find(([p]) => path.startsWith(p) && path !== p);
      switch (argv[0]) {
        case "blkdiscard": {
          if (!d) return { code: 1, stdout: "", stderr: "no such device", timedOut: false };
          if (d.readOnly) return { code: 1, stdout: "", stderr: `blkdiscard: ${path}: BLKDISCARD ioctl failed: Operation not permitted`, timedOut: false };
          if (argv.includes("--secure")) return { code: 1, stdout: "", stderr: `blkdiscard: ${path}: BLKSECDISCARD ioctl failed: Operation not supported`, timedOut: false };
          if (!d.ignoresDiscard || argv.includes("--zeroout")) {
            d.bytes.fill(0);
            d.signatures = [];
          }
          return ok();
        }
        case "wipefs": {
          const target = d ?? (parent ? undefined : undefined);
          if (argv.includes("--all")) {
            if (d?.readOnly) return { code: 1, stdout: "", stderr: `wipefs: error: ${path}: probing initialization failed: Read-only file system`, timedOut: false };
            if (target) target.signatures = [];
            if (parent) parent[1].signatures = parent[1].signatures.filter((s) => !s.startsWith(path));
            return ok();
          }
          return ok((d?.signatures ?? []).map((s) => `${s} 0x0\n`).join(""));
        }
        case "blkid":
          return d && d.signatures.length > 0 ? ok(`TYPE=${d.signatures[0]}\n`) : { code: 2, stdout: "", stderr: "", timedOut: false };
        case "blockdev":
          if (d && d.signatures.length === 0) d.partitions = [];
          return ok();
        default:
          return ok();
      }
    },
    async read(path, offset, length) {
      return (devs[path] as FakeDev).bytes.slice(offset, offset + length);
    },
    async writeZeroes(path, offset, length, blockBytes, progress) {
      const d = devs[path] as FakeDev;
      if (d.readOnly) throw new Error(`EROFS: read-only file system, open '${path}'`);
      for (let done = 0; done < length; ) {
        const n = Math.min(blockBytes, length - done);
        d.bytes.fill(0, offset + done, offset + done + n);
        done += n;
        time.advance(1000);
        progress?.(done);
      }
      if (offset === 0) d.signatures = d.signatures.filter((s) => s !== "gpt" && s !== "PMBR");
    },
    exists: async (path) => path in devs || files.has(path) || dirs.has(path),
    mkdir: async (path) => void dirs.add(path),
    writeFile: async (root, path, text, mode) => void files.set(`${root.replace(/\/+$/, "")}${path}`, { text, mode }),
    now: time.now,
    after: time.after,
    sleep: time.sleep,
  };
  return { io, calls, files, dirs, time };
}
