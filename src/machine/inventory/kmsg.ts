/**
 * Searches the kernel log through /dev/kmsg without ever blocking: opened O_NONBLOCK, one
 * record per read(2), from the oldest record still in the ring buffer, until a record
 * matches, the log ends (EAGAIN), or a bound is reached. EPIPE says records were
 * overwritten before they were read: counted, and the next read goes on with the oldest
 * one left. Reading /dev/kmsg takes nothing away from other readers (each open file has
 * its own position), unlike /proc/kmsg. The loop (scanKmsg) takes the read as a function,
 * so its decisions are tested on scripted reads; searchKmsg binds it to the device.
 */
import { closeSync, constants, openSync, readSync } from "node:fs";
import { parseKmsgRecord, type KmsgRecord } from "./kmsg-record.ts";

export const KMSG_PATH = "/dev/kmsg";

export interface KmsgBounds {
  /** read(2) calls: each returns one record, or says records were lost. */
  readonly reads: number;
  /** Bytes of records read. */
  readonly bytes: number;
}

/**
 * A boot's log is a few hundred to a few thousand records (the ring buffer is 128 KiB
 * with CONFIG_LOG_BUF_SHIFT=17, the metal-stack and Debian kernels' value, more with many
 * CPUs or log_buf_len=); the bounds only matter when a flood of new records keeps EAGAIN
 * away.
 */
export const KMSG_BOUNDS: KmsgBounds = { reads: 65_536, bytes: 16 * 1024 * 1024 };

/** devkmsg_read refuses (EINVAL) a buffer smaller than the record; a record with its dictionary stays below 8 KiB. */
export const KMSG_RECORD_BUFFER = 8192;

/** What one read(2) of /dev/kmsg gave: the record's length, or EAGAIN, EPIPE, EINTR. */
export type KmsgRead = number | "again" | "lost" | "interrupted";

export interface KmsgScan<T> {
  readonly found: T | undefined;
  readonly records: number;
  readonly bytes: number;
  /** EPIPE answers: records overwritten before they could be read. */
  readonly lost: number;
  /** The sequence number of the first record read: above 0, older ones were overwritten before the search. */
  readonly firstSeq: number | undefined;
  /** found; end: EAGAIN (or a read of 0), the log was read to its end; reads, bytes: that bound came first. */
  readonly end: "found" | "end" | "reads" | "bytes";
}

export function scanKmsg<T>(read: (buf: Uint8Array) => KmsgRead, match: (r: KmsgRecord) => T | undefined, bounds: KmsgBounds = KMSG_BOUNDS): KmsgScan<T> {
  const buf = new Uint8Array(KMSG_RECORD_BUFFER);
  const decoder = new TextDecoder();
  let reads = 0;
  let records = 0;
  let bytes = 0;
  let lost = 0;
  let firstSeq: number | undefined;
  const result = (end: KmsgScan<T>["end"], found?: T): KmsgScan<T> => ({ found, records, bytes, lost, firstSeq, end });
  for (;;) {
    if (reads >= bounds.reads) return result("reads");
    if (bytes >= bounds.bytes) return result("bytes");
    reads++;
    const r = read(buf);
    if (r === "again" || r === 0) return result("end");
    if (r === "lost") lost++;
    if (typeof r !== "number") continue;
    records++;
    bytes += r;
    const record = parseKmsgRecord(decoder.decode(buf.subarray(0, r)));
    firstSeq ??= record?.seq;
    const hit = record ? match(record) : undefined;
    if (hit !== undefined) return result("found", hit);
  }
}

function readRecord(fd: number, buf: Uint8Array): KmsgRead {
  try {
    return readSync(fd, buf, 0, buf.byteLength, null);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") return "again";
    if (code === "EPIPE") return "lost";
    if (code === "EINTR") return "interrupted";
    throw e;
  }
}

/** Scans /dev/kmsg (or `path`) for the first record `match` takes. Throws the fs error when it cannot be opened or read (ENOENT, EPERM). */
export function searchKmsg<T>(match: (r: KmsgRecord) => T | undefined, path = KMSG_PATH, bounds: KmsgBounds = KMSG_BOUNDS): KmsgScan<T> {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return scanKmsg((buf) => readRecord(fd, buf), match, bounds);
  } finally {
    closeSync(fd);
  }
}
