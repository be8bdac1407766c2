/**
 * `net`: IPv6 bring-up for the debug shell. `net up` runs the same code as the
 * network stage; `net status` shows links, addresses, routes and DNS; `net watch`
 * streams netlink events.
 */
import type { Command } from "commander";
import { parseNicList } from "../config/params.ts";
import { parseDuration } from "../config/duration.ts";
import { AgentError } from "../platform/errors.ts";
import { TooLargeError, readBoundedTextSync } from "../platform/fs/read-bounded.ts";
import { bringUp, type BringupOptions, type BringupResult } from "../network/net/bringup.ts";
import { parseResolvConf, renderStatus, statusView } from "../network/net/status.ts";
import { watch } from "../network/net/watch.ts";
import { NetlinkSocket } from "../network/netlink/socket.ts";
import type { Body } from "../network/netlink/message.ts";
import type { LogLevel } from "../platform/log/logger.ts";
import type { Context } from "../platform/io/context.ts";

const DEFAULT_RESOLV = "/etc/resolv.conf";

/** VmHWM of this process (peak resident set), for benches. */
function peakRssKiB(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readBoundedTextSync("/proc/self/status", "sysfs"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function duration(flag: string, v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined || ms <= 0) throw new AgentError("usage", `${flag} ${JSON.stringify(v)}: expected a duration like 30s, 500ms or 2m`, { flag });
  return ms;
}

/** An enumerated option: anything else is a usage error (exit 2) naming the flag and the choices. */
export function oneOf<T extends string>(flag: string, v: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new AgentError("usage", `${flag} ${JSON.stringify(v)}: expected ${allowed.slice(0, -1).join(", ")}${allowed.length > 1 ? " or " : ""}${allowed[allowed.length - 1]}`, {
    flag,
  });
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const satisfies readonly LogLevel[];

/** `--log-level` of `net` and `lldp`: a level name, else a usage error (exit 2) naming the flag and the levels. */
export const logLevel = (v: string): LogLevel => oneOf("--log-level", v, LOG_LEVELS);

export function selectors(v: string | undefined) {
  if (v === undefined) return [];
  const list = parseNicList(v);
  if (!list) throw new AgentError("usage", `--interfaces ${JSON.stringify(v)}: expected a comma-separated list of interface names or MACs`, {});
  return list;
}

interface UpOpts {
  interfaces?: string;
  policy: string;
  timeout: string;
  fast?: boolean;
  solicit?: boolean;
  rsDelay?: boolean;
  resolvConf: string;
  needDns?: boolean;
  carrierTimeout: string;
  json?: boolean;
  logLevel: string;
  record?: string;
}

/** `net up`'s options, every value checked before anything is touched (a usage error, exit 2, names the flag). */
function upOptions(o: UpOpts): Omit<BringupOptions, "log"> {
  return {
    selectors: selectors(o.interfaces),
    policy: oneOf("--policy", o.policy, ["any", "all"] as const),
    timeoutMs: duration("--timeout", o.timeout),
    fast: o.fast === true,
    ...(o.solicit !== undefined ? { solicit: o.solicit } : {}),
    rsDelay: o.rsDelay === true,
    resolvConf: o.resolvConf,
    dnsNeeded: o.needDns === true,
    carrierGraceMs: duration("--carrier-timeout", o.carrierTimeout),
    ...(o.record !== undefined ? { record: o.record } : {}),
  };
}

/** The bring-up's result: one JSON object (with the timings and peak RSS the benches read), or a line per interface and DNS. */
function printUp(ctx: Context, r: BringupResult, json: boolean): void {
  if (json) {
    const ms = Math.round((r.readyAt - r.linkUpAt) * 10) / 10;
    ctx.io.out(
      JSON.stringify({
        ready: r.ready,
        startedAt: performance.timeOrigin,
        startup: r.startup,
        linkUpAt: r.linkUpAt,
        readyAt: r.readyAt,
        ms,
        peakRssKiB: peakRssKiB(),
        ...r.summary,
      }) + "\n",
    );
    return;
  }
  ctx.io.out(`ready in ${Math.round(r.readyAt - r.linkUpAt)} ms: ${r.ready.join(", ")}\n`);
  for (const i of r.summary.interfaces) ctx.io.out(`  ${i.name} ${i.mac} ${i.state} ${i.addresses.join(" ") || "-"} via ${i.defaultRouters.join(" ") || "-"}\n`);
  ctx.io.out(`  dns ${r.summary.dns.servers.join(" ") || "-"} search ${r.summary.dns.search.join(" ") || "-"}\n`);
}

function registerUp(net: Command, ctx: Context): void {
  net
    .command("up")
    .description("bring the selected interfaces up and wait until the network is ready (address, default route, DNS)")
    .option("--interfaces <list>", "names or MACs, comma-separated (default: all physical NICs)")
    .option("--policy <any|all>", "ready when any / all interfaces are ready", "any")
    .option("--timeout <duration>", "bound for readiness", "60s")
    .option("--fast", "fast-ND profile: no RS delay, optimistic DAD, 100 ms DAD probes (DAD kept)")
    .option("--rs-delay", "keep the kernel's random 0-1 s delay before DAD and the first RS (RFC 4861/4862; segments shared by many hosts); implies --no-solicit unless --solicit")
    .option("--solicit", "send our own router solicitation from :: at link-up (the default unless --rs-delay)")
    .option("--no-solicit", "never send our own router solicitation")
    .option("--resolv-conf <path>", "where RA DNS is written", DEFAULT_RESOLV)
    .option("--need-dns", "readiness also needs a DNS server from the RA")
    .option("--carrier-timeout <duration>", "give an interface up after this long without carrier", "10s")
    .option("--json", "print the result as JSON")
    .option("--record <file>", "write every input of the bring-up reducer to this file as JSON lines (replayed by the unit tests)")
    .option("--log-level <level>", `log level (${LOG_LEVELS.join(", ")})`, "info")
    .action(async (o: UpOpts) => {
      const level = logLevel(o.logLevel);
      const opts = upOptions(o);
      printUp(ctx, await bringUp({ ...opts, log: ctx.logger(level) }), o.json === true);
    });
}

/** DNS as `path` has it: none when there is no file; a file too large to be a resolv.conf is a usage error. */
async function readDns(ctx: Context, path: string): Promise<ReturnType<typeof parseResolvConf>> {
  try {
    return parseResolvConf(new TextDecoder().decode(await ctx.io.readFile(path)));
  } catch (e) {
    if (e instanceof TooLargeError) throw new AgentError("usage", `--resolv-conf: ${e.message}`, { path });
    return { servers: [], search: [] };
  }
}

/** Links, addresses and routes, one dump each over one socket. */
function dumpAll(): Body[] {
  const rq = NetlinkSocket.open();
  try {
    return [...rq.dumpLinks(), ...rq.dumpAddrs(), ...rq.dumpRoutes()];
  } finally {
    rq.close();
  }
}

function registerStatus(net: Command, ctx: Context): void {
  net
    .command("status")
    .description("links, carrier, MAC, addresses with flags and lifetimes, default routes, DNS")
    .option("--resolv-conf <path>", "resolv.conf to read DNS from", DEFAULT_RESOLV)
    .option("--json", "print JSON")
    .action(async (o: { resolvConf: string; json?: boolean }) => {
      const bodies = dumpAll();
      const view = statusView(bodies, await readDns(ctx, o.resolvConf));
      ctx.io.out(o.json ? JSON.stringify(view) + "\n" : renderStatus(view));
    });
}

/** Resolves on the first SIGINT or SIGTERM; `off` removes the handlers. */
export function untilSignal(): { readonly stop: Promise<void>; readonly off: () => void } {
  let onSig = () => {};
  const stop = new Promise<void>((resolve) => (onSig = resolve));
  process.once("SIGINT", onSig);
  process.once("SIGTERM", onSig);
  return {
    stop,
    off: () => {
      process.off("SIGINT", onSig);
      process.off("SIGTERM", onSig);
    },
  };
}

function registerWatch(net: Command, ctx: Context): void {
  net
    .command("watch")
    .description("live netlink event stream for the selected interfaces (Ctrl-C ends)")
    .option("--interfaces <list>", "names or MACs, comma-separated (default: all physical NICs)")
    .option("--duration <duration>", "stop after this long")
    .option("--resolv-conf <path>", "also keep RA DNS in this file while watching")
    .option("--json", "one JSON object per line")
    .action(async (o: { interfaces?: string; duration?: string; resolvConf?: string; json?: boolean }) => {
      const signal = untilSignal();
      try {
        await watch({
          selectors: selectors(o.interfaces),
          durationMs: o.duration !== undefined ? duration("--duration", o.duration) : undefined,
          resolvConf: o.resolvConf,
          json: o.json === true,
          log: ctx.logger("info"),
          out: (l) => (ctx.io.outDroppable ? ctx.io.outDroppable(l) : ctx.io.out(l)),
          stop: signal.stop,
        });
      } finally {
        signal.off();
      }
    });
}

export function registerNet(program: Command, ctx: Context): void {
  const net = program.command("net").description("IPv6 bring-up over rtnetlink: SLAAC, DAD, RA DNS");
  registerUp(net, ctx);
  registerStatus(net, ctx);
  registerWatch(net, ctx);
}
