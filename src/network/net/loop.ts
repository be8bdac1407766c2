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

/** What the loop keeps between turns, beside the reducer's own state. */
interface Loop {
  readonly state: CoreState;
  readonly opts: CoreOptions;
  readonly shell: LoopShell;
  readonly writeLog: (r: LogRecord) => void;
  /** Inputs the applied effects fed back, still to be reduced. */
  readonly inputs: Input[];
  /** When the first link-up request went out. */
  linkUpAt: number | undefined;
}

export async function runLoop(src: EventSource, state: CoreState, opts: CoreOptions, shell: LoopShell): Promise<LoopResult> {
  const l: Loop = {
    state,
    opts,
    shell,
    writeLog: shell.onLog ?? ((r: LogRecord) => logEvent(shell.log, r.event, { ...r.fields }, r.msg, r.level)),
    inputs: [],
    linkUpAt: undefined,
  };
  let out = feed(l, { kind: "dump", t: clock(), what: "all", bodies: dumpAll(shell.rq) });
  const waiter = new Waiter(src, shell.stop);
  try {
    while (out.verdict.kind === "wait") {
      const now = clock();
      if (waiter.stopped) return { verdict: { kind: "end" }, linkUpAt: l.linkUpAt };
      if (now >= out.wakeAt) {
        out = feed(l, { kind: "tick", t: now });
        continue;
      }
      const r = await waiter.next(out.wakeAt - now);
      if (r === "woken") continue;
      if (r.done) return { verdict: { kind: "end" }, linkUpAt: l.linkUpAt };
      const e = r.value;
      out = feed(l, e.kind === "events" ? { kind: "events", t: e.t, bodies: e.bodies } : { kind: "overrun", t: e.t });
    }
    return { verdict: out.verdict, linkUpAt: l.linkUpAt };
  } finally {
    waiter.close();
  }
}

/** Feeds one input and everything its effects feed back. */
function feed(l: Loop, first: Input): Output {
  l.inputs.push(first);
  let last: Output | undefined;
  for (let input = l.inputs.shift(); input; input = l.inputs.shift()) {
    l.shell.record?.(input);
    last = reduce(l.state, l.opts, input);
    for (const r of last.logs) l.writeLog(r);
    l.shell.onOutput?.(input, last);
    for (const e of last.effects) applyEffect(l, e);
  }
  return last as Output;
}

/** One effect on the system; what it yields (a dump, the outcome of a resolv.conf write) is queued as an input. */
function applyEffect(l: Loop, e: Effect): void {
  const { rq, log } = l.shell;
  switch (e.kind) {
    case "dump": {
      const bodies = e.what === "all" ? dumpAll(rq) : rq.dumpAddrs();
      l.inputs.push({ kind: "dump", t: clock(), what: e.what, bodies });
      break;
    }
    case "prepare":
      l.shell.prepareLink?.(e.name);
      rq.setLinkUp(e.ifindex, e.name);
      break;
    case "link-up":
      l.linkUpAt ??= clock();
      rq.setLinkUp(e.ifindex, e.name);
      break;
    case "solicit": {
      const err = sendRouterSolicitation(e.ifindex);
      logEvent(log, "net.rs.sent", { ifname: e.name, attempt: e.attempt, ...(err ? { error: err } : {}) }, undefined, "debug");
      break;
    }
    case "write-dns":
      l.inputs.push({ kind: "dns-written", t: clock(), path: e.path, outcome: writeResolvConf(e.path, e.text) });
      break;
  }
}

/**
 * The next event from the source, or "woken" by the timer or by `stop`. One reaction on
 * `stop` for the whole loop: racing the long-lived promise on every turn (Promise.race)
 * left a reaction per turn on it, each holding that turn's event: net watch grew by
 * 15 MB/s under an RA flood, and slowly at every tick.
 */
class Waiter {
  readonly #events: AsyncIterator<SourceEvent>;
  /** The event asked for and not yet taken (kept across a timer's wake-up). */
  #next: Promise<IteratorResult<SourceEvent>> | undefined;
  #wake: (() => void) | undefined;
  #stopped = false;

  constructor(src: EventSource, stop: Promise<void> | undefined) {
    this.#events = src[Symbol.asyncIterator]();
    void stop?.then(() => {
      this.#stopped = true;
      this.#wake?.();
    });
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  async next(ms: number): Promise<IteratorResult<SourceEvent> | "woken"> {
    this.#next ??= this.#events.next();
    const pending = this.#next;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const r = await new Promise<IteratorResult<SourceEvent> | typeof TIMER | typeof STOP>((res, rej) => {
        timer = setTimeout(() => res(TIMER), ms);
        this.#wake = () => res(STOP);
        pending.then(res, rej);
      });
      if (typeof r === "symbol") return "woken";
      this.#next = undefined;
      return r;
    } finally {
      this.#wake = undefined;
      clearTimeout(timer);
    }
  }

  /** An event still asked for when the loop ends: its failure is not wanted. */
  close(): void {
    this.#next?.catch(() => {});
  }
}
