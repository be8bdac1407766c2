/**
 * `net watch`: the live event stream for the selected interfaces (no sysctl, no
 * link change), each decoded message as one line plus the milestones, through the
 * same loop and reducer as bring-up (subscribed before the first dump); with a
 * resolv.conf path it also keeps RA DNS there (lifetimes, removal). Ends on time
 * (--duration) or on Ctrl-C, whatever the event rate. A reader that does not keep up
 * costs bounded memory: lines the output refuses are dropped and counted, and the
 * count is printed (net.watch.dropped) before the next line that fits.
 */
import type { NicSelector } from "../../config/params.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import * as K from "../netlink/constants.ts";
import { EventSource } from "../netlink/event-source.ts";
import type { Body } from "../netlink/message.ts";
import { isDnssl, isRdnss } from "../netlink/ndopt.ts";
import { NetlinkSocket } from "../netlink/socket.ts";
import { selectLinks } from "./select-links.ts";
import { clock, runLoop } from "./loop.ts";
import { initialState, type LogRecord } from "./reducer.ts";
import { flagNames } from "./status.ts";

export interface WatchOptions {
  readonly selectors: readonly NicSelector[];
  readonly durationMs: number | undefined;
  readonly resolvConf: string | undefined;
  readonly json: boolean;
  readonly log: Logger;
  /** Prints one line; false = refused (the destination is full): the line is dropped and counted. */
  readonly out: (line: string) => boolean | void;
  /** Resolves to end the watch early (Ctrl-C). */
  readonly stop: Promise<void>;
}

export function describeBody(b: Body, name: (i: number) => string): string | undefined {
  switch (b.kind) {
    case "link":
      return `link ${b.op} ${name(b.ifindex)} ${b.flags & K.IFF_UP ? "up" : "down"} carrier=${b.flags & K.IFF_LOWER_UP ? "yes" : "no"} operstate=${K.OPERSTATE_NAMES[b.operstate ?? 0] ?? b.operstate}`;
    case "addr":
      return `addr ${b.op} ${name(b.ifindex)} ${b.address}/${b.prefixlen} ${flagNames(b.flags).join(",") || "-"}`;
    case "route":
      return b.dstLen === 0 && b.gateway
        ? `route ${b.op} default via ${b.gateway} dev ${name(b.oif ?? 0)} proto ${b.protocol}`
        : `route ${b.op} ${b.dst ?? "::"}/${b.dstLen} dev ${name(b.oif ?? 0)}`;
    case "prefix":
      return `prefix ${name(b.ifindex)} ${b.prefix}/${b.prefixlen} autonomous=${b.flags & K.ND_PREFIX_FLAG_AUTONOMOUS ? "yes" : "no"} valid=${b.valid}s`;
    case "useropt":
      return `ra-option ${name(b.ifindex)} from ${b.source} ${b.options
        .map((o) =>
          isRdnss(o) ? `rdnss ${o.servers.join(",")} lifetime ${o.lifetime}s` : isDnssl(o) ? `dnssl ${o.domains.join(",")} lifetime ${o.lifetime}s` : `option ${o.type}`,
        )
        .join("; ")}`;
    default:
      return undefined;
  }
}

/**
 * Lines to an output that may refuse them (false): a refused line is counted, and before
 * the next line that fits, a notice with the count since the last one (`notice(n)`).
 */
export function droppingOutput(out: (line: string) => boolean | void): { line(text: string, notice: (dropped: number) => string): void; total(): number } {
  let pending = 0;
  let total = 0;
  const refused = () => {
    pending++;
    total++;
  };
  return {
    line(text, notice) {
      if (pending > 0) {
        if (out(notice(pending)) === false) return refused();
        pending = 0;
      }
      if (out(text) === false) refused();
    },
    total: () => total,
  };
}

export async function watch(opts: WatchOptions): Promise<void> {
  const out = droppingOutput(opts.out);
  const src = EventSource.subscribe();
  let rq: NetlinkSocket | undefined;
  try {
    rq = NetlinkSocket.open();
    const selected = selectLinks(rq, { selectors: opts.selectors, log: opts.log });
    const t0 = clock();
    const state = initialState(selected, t0);
    const name = (i: number) => state.machines.find((m) => m.ifindex === i)?.name ?? `#${i}`;
    const format = (t: number, text: string, obj: Record<string, unknown>) =>
      opts.json ? JSON.stringify({ t: new Date(t).toISOString(), ...obj }) + "\n" : `${new Date(t).toISOString().slice(11, 23)} ${text}\n`;
    const print = (t: number, text: string, obj: Record<string, unknown>) =>
      out.line(format(t, text, obj), (dropped) => format(t, `net.watch.dropped ${JSON.stringify({ dropped })}`, { event: "net.watch.dropped", dropped }));
    const printRecord = (r: LogRecord) => {
      const t = t0 + (typeof r.fields.ms === "number" ? r.fields.ms : 0);
      print(t, `${r.event} ${JSON.stringify(r.fields)}`, { event: r.event, ...r.fields });
    };
    opts.log.info({ event: "net.watch", interfaces: selected.map((l) => l.name), durationMs: opts.durationMs ?? null }, "watching netlink events (Ctrl-C ends)");
    await runLoop(
      src,
      state,
      {
        mode: "watch",
        policy: "any",
        dnsNeeded: false,
        solicit: false,
        resolvConf: opts.resolvConf,
        deadline: opts.durationMs !== undefined ? t0 + opts.durationMs : Infinity,
        carrierGraceMs: Infinity,
      },
      {
        rq,
        log: opts.log,
        stop: opts.stop,
        onLog: (r) => (r.level === "debug" ? undefined : printRecord(r)),
        onOutput: (input, out) => {
          // The initial dump is state, not news: only events are printed.
          if (input.kind !== "events") return;
          for (const b of out.relevant) {
            const d = describeBody(b, name);
            if (d) print(input.t, d, { message: d });
          }
        },
      },
    );
  } finally {
    rq?.close();
    await src.stop();
    if (out.total() > 0) logEvent(opts.log, "net.watch.dropped", { dropped: out.total() }, `${out.total()} line(s) dropped: stdout did not keep up`, "warn");
  }
}
