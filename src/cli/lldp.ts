/**
 * `lldp`: who is on each port, for the debug shell. Listens for LLDP on the selected
 * NICs (bringing an administratively down one up, as the boot flow does) and sends our
 * own frame (system name = machine UUID) like the boot flow, until every NIC has a
 * neighbour or --duration passes; prints one block per NIC: switch, port, chassis,
 * TTL, management addresses, and whether the apiserver would take the port id as a mac.
 */
import type { Command } from "commander";
import { machineId } from "../clients/metal-boot/uuid.ts";
import { isMac } from "../platform/ids/mac.ts";
import { isUuid } from "../platform/ids/uuid.ts";
import { AgentError } from "../errors.ts";
import type { LldpNeighbour } from "../network/lldp/neighbour.ts";
import { PORT_ID_SUBTYPE_NAMES, portIdIsMac, startLldp } from "../network/lldp/session.ts";
import { mapNeighbour } from "../agent/provision/neighbours.ts";
import { distinctSwitches } from "../network/lldp/table.ts";
import { logEvent } from "../platform/log/logger.ts";
import { selectLinks } from "../network/net/select-links.ts";
import { IFF_LOWER_UP, IFF_UP } from "../network/netlink/constants.ts";
import { NetlinkSocket } from "../network/netlink/socket.ts";
import type { Context } from "../platform/io/context.ts";
import { duration, logLevel, selectors } from "./net.ts";

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
      if (o.uuid !== undefined && !isUuid(o.uuid)) throw new AgentError("usage", `--uuid ${JSON.stringify(o.uuid)}: expected a UUID like 00000000-6d68-6c00-0000-000000000001`, {});
      let systemName = o.uuid;
      if (o.announce && systemName === undefined) {
        systemName = await machineId(undefined, ctx.io.readFile).then(
          (id) => id.uuid,
          (e: unknown) => {
            logEvent(log, "lldp.start", { error: (e as Error).message }, "no machine UUID: listening only, not announcing (pass --uuid to announce)", "warn");
            return undefined;
          },
        );
      }
      const rq = NetlinkSocket.open();
      let links;
      try {
        links = selectLinks(rq, { selectors: sel, log });
        for (const l of links) if (!(l.flags & IFF_UP)) rq.setLinkUp(l.ifindex, l.name);
      } finally {
        rq.close();
      }
      const bad = links.filter((l) => !isMac(l.mac)).map((l) => l.name);
      if (bad.length > 0) {
        throw new AgentError("no_interface", `${bad.join(", ")}: not an Ethernet interface (no 6-byte MAC); LLDP needs Ethernet`, { interfaces: bad });
      }
      const t0 = performance.now();
      let allHeard = () => {};
      const done = new Promise<void>((resolve) => (allHeard = resolve));
      const session = startLldp({
        interfaces: links.map((l) => ({ name: l.name, ifindex: l.ifindex, mac: l.mac })),
        systemName: systemName ?? "",
        announce: o.announce && systemName !== undefined,
        log,
        onChange: () => {
          const seen = session.neighbours();
          if (links.every((l) => (seen.get(l.name)?.length ?? 0) > 0)) allHeard();
        },
      });
      let onSig = () => {};
      const stopped = new Promise<void>((resolve) => (onSig = resolve));
      process.once("SIGINT", onSig);
      process.once("SIGTERM", onSig);
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([done, stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, listenMs)))]);
      } finally {
        clearTimeout(timer);
        process.off("SIGINT", onSig);
        process.off("SIGTERM", onSig);
      }
      const seen = session.neighbours();
      await session.close();
      const listenedMs = Math.round(performance.now() - t0);
      // Carrier as of now (a link may have come up while listening).
      const now = NetlinkSocket.open();
      let carrier: Map<number, boolean>;
      try {
        carrier = new Map(now.dumpLinks().flatMap((b) => (b.kind === "link" ? [[b.ifindex, (b.flags & IFF_LOWER_UP) !== 0] as const] : [])));
      } finally {
        now.close();
      }
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
