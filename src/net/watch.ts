/**
 * `net watch`: the live event stream for the selected interfaces (no sysctl, no
 * link change), each decoded message as one line plus the machines' milestones;
 * with a resolv.conf path it also keeps RA DNS there (lifetimes, removal).
 */
import type { Logger } from "../log/logger.ts";
import * as K from "../netlink/constants.ts";
import { EventSource } from "../netlink/event-source.ts";
import type { Body } from "../netlink/message.ts";
import { isDnssl, isRdnss } from "../netlink/ndopt.ts";
import { NetlinkSocket } from "../netlink/socket.ts";
import type { NicSelector } from "../config/params.ts";
import { prepare } from "./bringup.ts";
import { InterfaceMachine } from "./machine.ts";
import { collectDns, renderResolvConf } from "./resolv.ts";
import { writeResolvConf } from "./resolv-file.ts";
import { flagNames } from "./status.ts";

export interface WatchOptions {
  readonly selectors: readonly NicSelector[];
  readonly durationMs: number | undefined;
  readonly resolvConf: string | undefined;
  readonly json: boolean;
  readonly log: Logger;
  readonly out: (line: string) => void;
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
      return b.dstLen === 0 && b.gateway ? `route ${b.op} default via ${b.gateway} dev ${name(b.oif ?? 0)} proto ${b.protocol}` : `route ${b.op} ${b.dst ?? "::"}/${b.dstLen} dev ${name(b.oif ?? 0)}`;
    case "prefix":
      return `prefix ${name(b.ifindex)} ${b.prefix}/${b.prefixlen} autonomous=${b.flags & K.ND_PREFIX_FLAG_AUTONOMOUS ? "yes" : "no"} valid=${b.valid}s`;
    case "useropt":
      return `ra-option ${name(b.ifindex)} from ${b.source} ${b.options
        .map((o) => (isRdnss(o) ? `rdnss ${o.servers.join(",")} lifetime ${o.lifetime}s` : isDnssl(o) ? `dnssl ${o.domains.join(",")} lifetime ${o.lifetime}s` : `option ${o.type}`))
        .join("; ")}`;
    default:
      return undefined;
  }
}

export async function watch(opts: WatchOptions): Promise<void> {
  const rq = NetlinkSocket.open();
  let src: EventSource | undefined;
  try {
    const selected = prepare(rq, { selectors: opts.selectors, fast: false, log: opts.log }, false);
    const t0 = performance.timeOrigin + performance.now();
    const machines = selected.map((l) => new InterfaceMachine(l.ifindex, l.name, l.mac, t0));
    const byIndex = new Map(machines.map((m) => [m.ifindex, m]));
    const name = (i: number) => byIndex.get(i)?.name ?? `#${i}`;
    const print = (t: number, text: string, obj: Record<string, unknown>) =>
      opts.out(opts.json ? JSON.stringify({ t: new Date(t).toISOString(), ...obj }) + "\n" : `${new Date(t).toISOString().slice(11, 23)} ${text}\n`);
    let lastDns = "";
    const dns = () => {
      if (!opts.resolvConf || !machines.some((m) => m.milestones.has("net.dns"))) return;
      const text = renderResolvConf(collectDns(machines));
      if (text !== lastDns) {
        lastDns = text;
        writeResolvConf(opts.resolvConf, text);
      }
    };
    const onBody = (b: Body, t: number) => {
      const idx = b.kind === "route" ? b.oif : "ifindex" in b ? b.ifindex : undefined;
      if (idx === undefined || !byIndex.has(idx)) return;
      const d = describeBody(b, name);
      if (d) print(t, d, { message: d });
      for (const m of machines) for (const e of m.apply(b, t)) print(e.t, `${e.event} ${JSON.stringify(e.fields)}`, { event: e.event, ...e.fields });
    };
    for (const b of [...rq.dumpLinks(), ...rq.dumpAddrs(), ...rq.dumpRoutes()]) for (const m of machines) m.apply(b, t0);
    src = await EventSource.start({
      messages: (msgs, t) => {
        for (const m of msgs) onBody(m.body, t);
        dns();
      },
      overrun: (t) => print(t, "overrun (ENOBUFS): events were lost", { event: "overrun" }),
      failed: (e) => opts.log.error({ event: "net.watch", err: e.message }, "netlink event reader failed"),
    });
    opts.log.info({ event: "net.watch", interfaces: machines.map((m) => m.name), durationMs: opts.durationMs ?? null }, "watching netlink events (Ctrl-C ends)");
    const tick = setInterval(() => {
      const t = performance.timeOrigin + performance.now();
      for (const m of machines) for (const e of m.tick(t)) print(e.t, `${e.event} ${JSON.stringify(e.fields)}`, { event: e.event, ...e.fields });
      dns();
    }, 200);
    await Promise.race([opts.stop, ...(opts.durationMs !== undefined ? [Bun.sleep(opts.durationMs)] : [])]);
    clearInterval(tick);
  } finally {
    rq.close();
    await src?.stop();
  }
}
