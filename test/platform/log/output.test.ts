/**
 * FdOutput over a FIFO nobody reads (non-blocking, so a full pipe is EAGAIN): log
 * lines beyond the cap are dropped and counted, data is kept, and once a reader
 * drains the pipe everything queued arrives, followed by one log.dropped line.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, logEvent } from "../../../src/platform/log/logger.ts";
import { FdOutput } from "../../../src/platform/log/output.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { waitFor } from "../../../lab/base/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "fd-output-"));
const fds: number[] = [];
afterAll(() => {
  for (const fd of fds) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

function fifo(name: string): { writeFd: number; readFd: number } {
  const p = join(dir, name);
  Bun.spawnSync(["mkfifo", p]);
  // O_RDWR: opening does not wait for a reader; O_NONBLOCK: a full pipe is EAGAIN, not a stuck thread.
  const writeFd = openSync(p, constants.O_RDWR | constants.O_NONBLOCK);
  const readFd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK);
  fds.push(writeFd, readFd);
  return { writeFd, readFd };
}

/** Reads what is in the pipe now (non-blocking). */
function drain(fd: number): string {
  const buf = Buffer.alloc(1 << 16);
  let text = "";
  for (;;) {
    let n = 0;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") return text;
      throw e;
    }
    if (n === 0) return text;
    text += buf.subarray(0, n).toString();
  }
}

describe("FdOutput", () => {
  test("with nobody reading, log lines beyond the cap are dropped and counted; memory stays at the cap", async () => {
    const { writeFd, readFd } = fifo("blocked");
    const CAP = 64 << 10;
    const out = new FdOutput(writeFd, CAP);
    const log = createLogger({
      level: "debug",
      format: "json",
      write: (l) => out.writeDroppable(l),
      writeAlways: (l) => out.write(l),
      secrets: new SecretSet(),
      flush: () => out.flush(),
    });
    const filler = "k".repeat(1000);
    for (let i = 0; i < 5000; i++) logEvent(log, "provision.wait.keepalive", { i, filler }, "Wait: keepalive", "debug");
    // ~5 MB offered; at most the cap plus one line waits in memory.
    expect(out.pending).toBeLessThanOrEqual(CAP + 2000);
    expect(log.dropped).toBeGreaterThan(4000);
    // An error line is never dropped, even now: it comes with the count of what was lost before it.
    logEvent(log, "agent.fatal", { code: "wait_timeout" }, "why the agent stopped", "fatal");
    expect(out.pending).toBeGreaterThan(CAP);
    const droppedBefore = log.dropped;
    // A reader appears: the queue drains, and the next line is preceded by the count.
    let got = "";
    await waitFor(
      () => {
        got += drain(readFd);
        return out.pending === 0;
      },
      10_000,
      "the queue to drain into the pipe",
      10,
    );
    logEvent(log, "agent.fatal", { code: "wait_timeout" }, "the last line", "fatal");
    await waitFor(
      () => {
        got += drain(readFd);
        return got.includes("the last line");
      },
      10_000,
      "the last line",
      10,
    );
    const records = got
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const notices = records.filter((r) => r.event === "log.dropped");
    expect(notices).toEqual([expect.objectContaining({ dropped: droppedBefore, total: droppedBefore, level: 40 })]);
    const fatal = records.findIndex((r) => r.msg === "why the agent stopped");
    expect(records[fatal - 1]?.event).toBe("log.dropped");
    expect(records.at(-1)).toMatchObject({ event: "agent.fatal", msg: "the last line" });
    // Every line that was accepted arrived whole and in order.
    const kept = records.filter((r) => r.event === "provision.wait.keepalive").map((r) => r.i as number);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(kept.length + droppedBefore).toBe(5000);
  });

  test("data writes are never dropped and flush resolves only when every byte is out", async () => {
    const { writeFd, readFd } = fifo("data");
    const out = new FdOutput(writeFd, 1024);
    const data = "d".repeat(1 << 20);
    out.write(data);
    let flushed = false;
    const f = out.flush(20_000).then((ok) => (flushed = ok));
    let got = "";
    await waitFor(
      () => {
        got += drain(readFd);
        return got.length === data.length && flushed;
      },
      20_000,
      "all data through the pipe",
      5,
    );
    await f;
    expect(got).toBe(data);
  });

  test("flush gives up after its bound when nobody reads", async () => {
    const { writeFd } = fifo("stuck");
    const out = new FdOutput(writeFd);
    out.write("x".repeat(200_000));
    expect(await out.flush(200)).toBe(false);
  });
});
