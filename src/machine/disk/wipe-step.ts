/**
 * What every wipe method is made of: a bounded tool call whose failure hands over to
 * the next method (MethodFailed), and a poll of a drive that erases in the background
 * (NVMe and ATA sanitize, SCSI sanitize and format) until it says done, failed, or the
 * method's bound is reached, with a progress line each time.
 */
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { every } from "../../platform/io/timers.ts";
import type { DiskIo } from "./io.ts";

/** A method that did not erase: the executor logs it and tries the next one. */
export class MethodFailed extends Error {}

/** Runs one tool call; a timeout or a non-zero exit is MethodFailed naming the command and its last output lines. */
export async function tool(io: DiskIo, argv: string[], timeoutMs: number): Promise<string> {
  const r = await io.run(argv, { timeoutMs });
  if (r.timedOut) throw new MethodFailed(`${argv.join(" ")}: no answer within ${Math.round(timeoutMs / 1000)} s (killed)`);
  if (r.code !== 0) throw new MethodFailed(`${argv.join(" ")} exited ${r.code}: ${lastLines(r.stderr.trim() || r.stdout.trim())}`);
  return r.stdout;
}

export const lastLines = (text: string): string => text.split("\n").slice(-2).join(" / ");

export type PollAnswer = { readonly state: "running" | "done" | "failed" | "idle"; readonly progress: number | undefined };

/**
 * Asks `read` until the drive says done; failed (or idle when `idleIsDone` is false,
 * the erase never ran) is MethodFailed, and so is the bound. Backs off from 0.5 s to
 * 10 s between polls.
 */
export async function pollUntilDone(
  o: { readonly io: DiskIo; readonly log: Logger },
  what: { readonly disk: string; readonly method: string; readonly device: string },
  timeoutMs: number,
  read: () => Promise<PollAnswer>,
  idleIsDone: boolean,
): Promise<void> {
  const end = o.io.now() + timeoutMs;
  let delay = 500;
  for (;;) {
    const s = await read();
    if (s.state === "done" || (s.state === "idle" && idleIsDone)) return;
    if (s.state === "failed") throw new MethodFailed(`${what.method} on ${what.device}: the drive reports failure`);
    if (s.state === "idle") throw new MethodFailed(`${what.method} on ${what.device}: the drive reports no erase running and none completed`);
    if (o.io.now() >= end) throw new MethodFailed(`${what.method} on ${what.device} not finished within ${Math.round(timeoutMs / 1000)} s`);
    logEvent(o.log, "disk.wipe.progress", { disk: what.disk, method: what.method, progress: s.progress }, `waiting for ${what.method} on ${what.device}`);
    await o.io.sleep(delay * (0.75 + Math.random() / 2));
    delay = Math.min(delay * 2, 10_000);
  }
}

/**
 * Runs `fn` (one tool call that erases the whole device and reports no progress of its
 * own) with a `disk.wipe.progress` line every `heartbeatMs` saying what is being waited
 * for, for how long, and the bound.
 */
export async function withHeartbeat<T>(
  o: { readonly io: DiskIo; readonly log: Logger; readonly heartbeatMs?: number },
  what: { readonly disk: string; readonly device: string; readonly method: string; readonly tool: string },
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const start = o.io.now();
  const stop = every(o.io, o.heartbeatMs ?? 30_000, () => {
    const elapsedMs = Math.round(o.io.now() - start);
    logEvent(
      o.log,
      "disk.wipe.progress",
      { disk: what.disk, method: what.method, elapsedMs, timeoutMs },
      `${what.device}: ${what.method} still running after ${Math.round(elapsedMs / 1000)} s (${what.tool}; bound ${Math.round(timeoutMs / 1000)} s)`,
    );
  });
  try {
    return await fn();
  } finally {
    stop();
  }
}
