/**
 * `lldp`: who is on each port, for the debug shell. Listens for LLDP on the selected
 * NICs (bringing an administratively down one up, as the boot flow does) and sends our
 * own frame (system name = machine UUID) like the boot flow, until every NIC has a
 * neighbour or --duration passes; prints one block per NIC: switch, port, chassis,
 * TTL, management addresses, and whether the apiserver would take the port id as a mac.
 */
import type { Command } from "commander";
import { machineId } from "../clients/metal-boot/machine-uuid.ts";
import { isMac } from "../platform/ids/mac.ts";
import { isUuid } from "../platform/ids/uuid.ts";
import { AgentError } from "../platform/errors.ts";
import type { LldpNeighbour, LldpSession } from "../network/lldp/neighbour.ts";
import { PORT_ID_SUBTYPE_NAMES, portIdIsMac, startLldp } from "../network/lldp/session.ts";
import { mapNeighbour } from "../agent/neighbours.ts";
import { distinctSwitches } from "../network/lldp/table.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { selectLinks } from "../network/net/select-links.ts";
import type { LinkFacts } from "../network/net/select.ts";
import type { NicSelector } from "../config/params.ts";
import { IFF_LOWER_UP, IFF_UP } from "../network/netlink/constants.ts";
import { NetlinkSocket } from "../network/netlink/socket.ts";
import type { Context } from "../platform/io/context.ts";
import { duration, logLevel, selectors, untilSignal } from "./net.ts";

/** metal-hammer's LLDPTxIntervalTimeout: twice the leaves' 15 s tx-interval plus 2 s (cmd/network/lldpclient.go). */
export const DEFAULT_LISTEN = "32s";

interface LldpOpts {
  interfaces?: string;
  duration: string;
  uuid?: string;
  announce: boolean;
  json?: boolean;
  logLevel: string;
}

export interface PortView {
  readonly name: string;
  readonly mac: string;
  readonly carrier: boolean;
  readonly neighbours: readonly (LldpNeighbour & { readonly portIdIsMac: boolean })[];
}

export function renderPorts(ports: readonly PortView[], listenedMs: number): string {
  const lines: string[] = [];
  for (const p of ports) {
    if (p.neighbours.length === 0) {
      lines.push(`${p.name} ${p.mac}: ${p.carrier ? `no LLDP neighbour heard in ${(listenedMs / 1000).toFixed(1)} s` : "no carrier"}`);
      continue;
    }
    for (const n of p.neighbours) {
      lines.push(`${p.name} ${p.mac}: switch ${n.systemName || "(no system name)"} port ${n.portDescription || "(no description)"}`);
      lines.push(`    port id ${n.portId} (${PORT_ID_SUBTYPE_NAMES[n.portIdSubtype] ?? `subtype ${n.portIdSubtype}`})`);
      lines.push(`    chassis ${n.chassisId}, ttl ${n.ttlSeconds} s${n.managementAddresses.length ? `, management ${n.managementAddresses.join(" ")}` : ""}`);
      const m = mapNeighbour(n);
      lines.push(m.ok ? `    Register: identifier ${m.nic.identifier}, name ${m.nic.name}, mac ${m.nic.mac} (the ${m.macFrom})` : `    Register leaves it out: ${m.reason}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** The system name to announce: --uuid (checked), else the machine UUID from DMI; none (listening only, one warn line) when DMI has none. */
async function announceName(ctx: Context, o: LldpOpts, log: Logger): Promise<string | undefined> {
  if (o.uuid !== undefined && !isUuid(o.uuid)) throw new AgentError("usage", `--uuid ${JSON.stringify(o.uuid)}: expected a UUID like 00000000-6d68-6c00-0000-000000000001`, {});
  if (o.uuid !== undefined || !o.announce) return o.uuid;
  return await machineId(undefined, ctx.io.readFile).then(
    (id) => id.uuid,
    (e: unknown) => {
      logEvent(log, "lldp.start", { error: (e as Error).message }, "no machine UUID: listening only, not announcing (pass --uuid to announce)", "warn");
      return undefined;
    },
  );
}

/** The selected NICs, an administratively down one brought up (as the boot flow does); a NIC without a 6-byte MAC is refused (LLDP needs Ethernet). */
function selectEthernet(sel: readonly NicSelector[], log: Logger): readonly LinkFacts[] {
  const rq = NetlinkSocket.open();
  let links: readonly LinkFacts[];
  try {
    links = selectLinks(rq, { selectors: sel, log });
    for (const l of links) if (!(l.flags & IFF_UP)) rq.setLinkUp(l.ifindex, l.name);
  } finally {
    rq.close();
  }
  const bad = links.filter((l) => !isMac(l.mac)).map((l) => l.name);
  if (bad.length > 0) throw new AgentError("no_interface", `${bad.join(", ")}: not an Ethernet interface (no 6-byte MAC); LLDP needs Ethernet`, { interfaces: bad });
  return links;
}

/** Listens (and announces `systemName` when `announce` and there is one) until every link has a neighbour, a signal, or `listenMs`; what was heard and for how long. */
async function listen(
  links: readonly LinkFacts[],
  systemName: string | undefined,
  announce: boolean,
  listenMs: number,
  log: Logger,
): Promise<{ seen: ReturnType<LldpSession["neighbours"]>; listenedMs: number }> {
  const t0 = performance.now();
  let allHeard = () => {};
  const done = new Promise<void>((resolve) => (allHeard = resolve));
  const session = startLldp({
    interfaces: links.map((l) => ({ name: l.name, ifindex: l.ifindex, mac: l.mac })),
    systemName: systemName ?? "",
    announce: announce && systemName !== undefined,
    log,
    onChange: () => {
      const seen = session.neighbours();
      if (links.every((l) => (seen.get(l.name)?.length ?? 0) > 0)) allHeard();
    },
  });
  const signal = untilSignal();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([done, signal.stop, new Promise<void>((resolve) => (timer = setTimeout(resolve, listenMs)))]);
  } finally {
    clearTimeout(timer);
    signal.off();
  }
  const seen = session.neighbours();
  await session.close();
  return { seen, listenedMs: Math.round(performance.now() - t0) };
}

/** Carrier by ifindex as of now (a link may have come up while listening). */
function carrierNow(): Map<number, boolean> {
  const rq = NetlinkSocket.open();
  try {
    return new Map(rq.dumpLinks().flatMap((b) => (b.kind === "link" ? [[b.ifindex, (b.flags & IFF_LOWER_UP) !== 0] as const] : [])));
  } finally {
    rq.close();
  }
}

export function registerLldp(program: Command, ctx: Context): void {
  program
    .command("lldp")
    .description("who is on each port: listen for LLDP on the selected NICs (and announce the machine UUID) until each has a neighbour or --duration passes")
    .option("--interfaces <list>", "names or MACs, comma-separated (default: all physical NICs)")
    .option("--duration <duration>", "listen at most this long", DEFAULT_LISTEN)
    .option("--uuid <uuid>", "system name to announce (default: the machine UUID from DMI)")
    .option("--no-announce", "only listen, send no LLDP frame")
    .option("--json", "print JSON")
    .option("--log-level <level>", "log level", "warn")
    .action(async (o: LldpOpts) => {
      const log = ctx.logger(logLevel(o.logLevel));
      const listenMs = duration("--duration", o.duration);
      const sel = selectors(o.interfaces);
      const systemName = await announceName(ctx, o, log);
      const links = selectEthernet(sel, log);
      const { seen, listenedMs } = await listen(links, systemName, o.announce, listenMs, log);
      const carrier = carrierNow();
      const ports: PortView[] = links.map((l) => ({
        name: l.name,
        mac: l.mac,
        carrier: carrier.get(l.ifindex) ?? false,
        neighbours: (seen.get(l.name) ?? []).map((n) => ({ ...n, portIdIsMac: portIdIsMac(n) })),
      }));
      if (o.json) ctx.io.out(JSON.stringify({ listenedMs, switches: distinctSwitches(seen), interfaces: ports }) + "\n");
      else ctx.io.out(renderPorts(ports, listenedMs));
    });
}
