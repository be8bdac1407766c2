/**
 * The one loop of bring-up and `net watch`: feeds the reducer (reducer.ts) with
 * the first full dump (taken after the event socket is subscribed), every event,
 * ticks when it asked to be woken, and the results of the effects it applies
 * (dumps, link up, sysctls of a re-created interface, our RS, resolv.conf), until
 * the verdict is no longer "wait" or `stop` resolves. Ticks are fed on time even
 * when events arrive faster than they can be handled, so a deadline holds under a
 * flood.
 */
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { EventSource, SourceEvent } from "../netlink/event-source.ts";
import type { Body } from "../netlink/message.ts";
import type { NetlinkSocket } from "../netlink/socket.ts";
import { reduce, type CoreOptions, type CoreState, type Effect, type Input, type LogRecord, type Output, type Verdict } from "./reducer.ts";
import { writeResolvConf } from "./resolv-file.ts";
import { sendRouterSolicitation } from "./rs-send.ts";

export const clock = (): number => performance.timeOrigin + performance.now();

export interface LoopShell {
  readonly rq: NetlinkSocket;
  readonly log: Logger;
  /** Writes the sysctls of a (re-created) interface before it goes up. */
  readonly prepareLink?: (name: string) => void;
  /** Where log records go (default: the logger). */
  readonly onLog?: (r: LogRecord) => void;
  /** Sees every input and what the reducer made of it (net watch prints from here). */
  readonly onOutput?: (input: Input, out: Output) => void;
  /** Ends the loop early (Ctrl-C): the verdict is then "end". */
  readonly stop?: Promise<void>;
  /** Sees every input before the reducer does (`net up --record`: replayable sequences for the tests). */
  readonly record?: (input: Input) => void;
}

export interface LoopResult {
  readonly verdict: Verdict;
  /** When the first link-up request went out (undefined if every link was already up). */
  readonly linkUpAt: number | undefined;
}

export function dumpAll(rq: NetlinkSocket): Body[] {
  return [...rq.dumpLinks(), ...rq.dumpAddrs(), ...rq.dumpRoutes()];
}

const STOP = Symbol("stop");
const TIMER = Symbol("timer");

export async function runLoop(src: EventSource, state: CoreState, opts: CoreOptions, shell: LoopShell): Promise<LoopResult> {
  const { rq, log } = shell;
  const writeLog = shell.onLog ?? ((r: LogRecord) => logEvent(log, r.event, { ...r.fields }, r.msg, r.level));
  let linkUpAt: number | undefined;
  let out: Output;
  const inputs: Input[] = [];

  const apply = (e: Effect): void => {
    switch (e.kind) {
      case "dump": {
        const bodies = e.what === "all" ? dumpAll(rq) : rq.dumpAddrs();
        inputs.push({ kind: "dump", t: clock(), what: e.what, bodies });
        break;
      }
      case "prepare":
        shell.prepareLink?.(e.name);
        rq.setLinkUp(e.ifindex, e.name);
        break;
      case "link-up":
        linkUpAt ??= clock();
        rq.setLinkUp(e.ifindex, e.name);
        break;
      case "solicit": {
        const err = sendRouterSolicitation(e.ifindex);
        logEvent(log, "net.rs.sent", { ifname: e.name, attempt: e.attempt, ...(err ? { error: err } : {}) }, undefined, "debug");
        break;
      }
      case "write-dns":
        inputs.push({ kind: "dns-written", t: clock(), path: e.path, outcome: writeResolvConf(e.path, e.text) });
        break;
    }
  };
  /** Feeds one input and everything its effects feed back. */
  const feed = (first: Input): Output => {
    inputs.push(first);
    let last: Output | undefined;
    for (let input = inputs.shift(); input; input = inputs.shift()) {
      shell.record?.(input);
      last = reduce(state, opts, input);
      for (const r of last.logs) writeLog(r);
      shell.onOutput?.(input, last);
      for (const e of last.effects) apply(e);
    }
    return last as Output;
  };

  out = feed({ kind: "dump", t: clock(), what: "all", bodies: dumpAll(rq) });
  const events = src[Symbol.asyncIterator]();
  let next: Promise<IteratorResult<SourceEvent>> | undefined;
  let stopped = false;
  // One reaction on `stop` for the whole loop: racing the long-lived promise on every
  // turn (Promise.race) left a reaction per turn on it, each holding that turn's event:
  // net watch grew by 15 MB/s under an RA flood, and slowly at every tick.
  let wake: (() => void) | undefined;
  void shell.stop?.then(() => {
    stopped = true;
    wake?.();
  });
  try {
    while (out.verdict.kind === "wait") {
      const now = clock();
      if (stopped) return { verdict: { kind: "end" }, linkUpAt };
      if (now >= out.wakeAt) {
        out = feed({ kind: "tick", t: now });
        continue;
      }
      next ??= events.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const pending = next;
      const r = await new Promise<IteratorResult<SourceEvent> | typeof TIMER | typeof STOP>((res, rej) => {
        timer = setTimeout(() => res(TIMER), out.wakeAt - now);
        wake = () => res(STOP);
        pending.then(res, rej);
      });
      wake = undefined;
      clearTimeout(timer);
      if (typeof r === "symbol") continue;
      next = undefined;
      if (r.done) return { verdict: { kind: "end" }, linkUpAt };
      const e = r.value;
      out = feed(e.kind === "events" ? { kind: "events", t: e.t, bodies: e.bodies } : { kind: "overrun", t: e.t });
    }
    return { verdict: out.verdict, linkUpAt };
  } finally {
    next?.catch(() => {});
  }
}
