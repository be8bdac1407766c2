/**
 * The socket workers' shared read loop (src/platform/sys/poll-loop.ts) against a scripted libc:
 * each poll() round is one step of the script (which fds have events, or an errno),
 * each fd has a queue of recv() results. The real sockets are exercised by the netlink
 * and LLDP namespace suites (test/integration/net, test/integration/lldp).
 */
import { describe, expect, test } from "bun:test";
import { EAGAIN, EINTR, ENOBUFS } from "../../../src/platform/sys/errno.ts";
import { MSG_DONTWAIT, POLLIN } from "../../../src/platform/sys/libc.ts";
import { pollLoop, POLL_TIMEOUT_MS, type PollHandlers, type PollLibc } from "../../../src/platform/sys/poll-loop.ts";

type Round = { readonly errno: number } | Readonly<Record<number, number>>; // fd -> revents
type Recv = string | { readonly errno: number };

/** A libc whose poll() plays `rounds` (then sets the stop flag) and whose recv() pops each fd's queue (then EAGAIN). */
function scripted(rounds: Round[], recvs: Record<number, Recv[]>, stop: SharedArrayBuffer) {
  let errno = 0;
  const polled: number[][] = [];
  const c: PollLibc & { polled: number[][] } = {
    polled,
    errno: () => errno,
    poll(pfds, nfds, timeoutMs) {
      expect(timeoutMs).toBe(POLL_TIMEOUT_MS);
      const dv = new DataView(pfds.buffer);
      const fds = Array.from({ length: nfds }, (_, i) => dv.getInt32(i * 8, true));
      polled.push(fds);
      const round = rounds.shift();
      if (round === undefined) {
        Atomics.store(new Int32Array(stop), 0, 1);
        return 0;
      }
      if ("errno" in round) {
        errno = round.errno as number;
        return -1;
      }
      let ready = 0;
      fds.forEach((fd, i) => {
        expect(dv.getInt16(i * 8 + 4, true)).toBe(POLLIN);
        const ev = fd >= 0 ? ((round as Record<number, number>)[fd] ?? 0) : 0;
        dv.setInt16(i * 8 + 6, ev, true);
        if (ev) ready++;
      });
      return ready;
    },
    recv(fd, buf, _len, flags) {
      expect(flags).toBe(MSG_DONTWAIT);
      const next = recvs[fd]?.shift();
      if (next === undefined) {
        errno = EAGAIN;
        return -1;
      }
      if (typeof next !== "string") {
        errno = next.errno;
        return -1;
      }
      const b = new TextEncoder().encode(next);
      buf.set(b);
      return b.length;
    },
  };
  return c;
}

function run(rounds: Round[], recvs: Record<number, Recv[]>, fds: number[], h: Partial<PollHandlers> = {}) {
  const stop = new SharedArrayBuffer(4);
  const c = scripted(rounds, recvs, stop);
  const got: string[] = [];
  const errors: string[] = [];
  const end = pollLoop(c, fds, stop, 64, {
    data: (i, buf, n) => got.push(`${i}:${new TextDecoder().decode(buf.subarray(0, n))}`),
    recvError: (i, e) => (errors.push(`${i}:${e}`), "next"),
    ...h,
  });
  return { end, got, errors, polled: c.polled };
}

describe("pollLoop", () => {
  test("reads every ready fd until EAGAIN, in order, and stops once the flag is set", () => {
    const r = run([{ 3: POLLIN, 5: POLLIN }, {}, { 5: POLLIN }], { 3: ["a", "b"], 5: ["c", "d"] }, [3, 5]);
    expect(r.got).toEqual(["0:a", "0:b", "1:c", "1:d"]);
    expect(r.end).toEqual({ kind: "stopped" });
    expect(r.polled).toHaveLength(4);
  });

  test("EINTR is retried on poll() and on recv()", () => {
    const r = run([{ errno: EINTR }, { 3: POLLIN }], { 3: ["a", { errno: EINTR }, "b"] }, [3]);
    expect(r.got).toEqual(["0:a", "0:b"]);
    expect(r.errors).toEqual([]);
    expect(r.end).toEqual({ kind: "stopped" });
  });

  test("a poll() failure ends the loop with its errno", () => {
    expect(run([{ errno: 9 }], {}, [3]).end).toEqual({ kind: "poll_error", errno: 9 });
  });

  test("recv() errors go to the handler: retry, next fd, drop the fd, or end", () => {
    const retry = run([{ 3: POLLIN }], { 3: ["a", { errno: ENOBUFS }, "b"] }, [3], { recvError: () => "retry" });
    expect(retry.got).toEqual(["0:a", "0:b"]);
    const next = run([{ 3: POLLIN, 5: POLLIN }, { 3: POLLIN }], { 3: [{ errno: 100 }, "later"], 5: ["c"] }, [3, 5]);
    expect(next.got).toEqual(["1:c", "0:later"]);
    expect(next.errors).toEqual(["0:100"]);
    const drop = run([{ 3: POLLIN }, {}], { 3: [{ errno: 5 }] }, [3, 7], { recvError: () => "drop" });
    expect(drop.polled).toEqual([
      [3, 7],
      [-1, 7],
      [-1, 7],
    ]);
    const end = run([{ 3: POLLIN }], { 3: [{ errno: 5 }, "never"] }, [3], { recvError: () => "end" });
    expect(end.end).toEqual({ kind: "ended" });
    expect(end.got).toEqual([]);
  });

  test("the events handler decides per fd: read, skip this round, or drop it", () => {
    const seen: string[] = [];
    const r = run(
      [
        { 3: 0x8, 5: 0x20 },
        { 3: POLLIN, 5: POLLIN },
      ],
      { 3: ["a"], 5: ["never"] },
      [3, 5],
      {
        events: (i, fd, revents) => {
          seen.push(`${i}/${fd}/${revents}`);
          if (revents & 0x20) return "drop";
          return (revents & POLLIN) !== 0;
        },
      },
    );
    // fd 3: POLLERR only (not read), then POLLIN (read); fd 5: POLLNVAL, dropped, never polled again.
    expect(seen).toEqual(["0/3/8", "1/5/32", "0/3/1"]);
    expect(r.got).toEqual(["0:a"]);
    expect(r.polled.slice(1).every((fds) => fds[1] === -1)).toBe(true);
  });
});
