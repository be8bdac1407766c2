/**
 * The one NIC selection of the agent, over this machine's links: rtnetlink's link dump,
 * the pure rule (select.ts selectInterfaces: METAL_NICS, else the physical NICs, a
 * `device` link under the sysfs root), one net.select line, and no_interface when
 * nothing is left. Bring-up, `net watch`, `lldp` and the flow's LLDP start (before
 * bring-up) all select here, so they never disagree on which NICs are the machine's.
 */
import type { NicSelector } from "../../config/params.ts";
import { AgentError } from "../../platform/errors.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { Body } from "../netlink/message.ts";
import { NetlinkSocket } from "../netlink/socket.ts";
import { selectInterfaces, unmatchedSelectors, type LinkFacts } from "./select.ts";
import { sysfsHasDevice } from "./net-sysfs.ts";

export interface SelectOptions {
  readonly selectors: readonly NicSelector[];
  /** The sysfs root the `device` links are looked up under (default /sys). */
  readonly sysfsRoot?: string;
  readonly log: Logger;
}

/** The link messages of a dump as the facts selection takes. Pure. */
export function linkFacts(bodies: readonly Body[]): LinkFacts[] {
  return bodies.flatMap((b) => (b.kind === "link" && b.name ? [{ ifindex: b.ifindex, name: b.name, mac: b.mac ?? "", flags: b.flags, kind: b.linkKind }] : []));
}

/** Selects the interfaces over an open socket (logged as net.select); throws no_interface when none is left. */
export function selectLinks(rq: NetlinkSocket, opts: SelectOptions): readonly LinkFacts[] {
  const links = linkFacts(rq.dumpLinks());
  const { selected, skipped } = selectInterfaces(links, opts.selectors, sysfsHasDevice(opts.sysfsRoot));
  const missing = unmatchedSelectors(links, opts.selectors).map((s) => (s.kind === "name" ? s.name : s.mac));
  logEvent(opts.log, "net.select", { selected: selected.map((l) => l.name), skipped, missing });
  if (selected.length === 0) {
    const seen = links.map((l) => l.name).join(", ");
    const want = opts.selectors.length > 0 ? `METAL_NICS ${opts.selectors.map((s) => (s.kind === "name" ? s.name : s.mac)).join(",")}` : "a physical NIC (device link in sysfs)";
    throw new AgentError("no_interface", `no network interface matches ${want}; present: ${seen || "none"}`, { present: links.map((l) => l.name) });
  }
  return selected;
}

/** selectLinks on a socket of its own (the flow's LLDP start, before bring-up opens one). */
export function selectNics(opts: SelectOptions): readonly LinkFacts[] {
  const rq = NetlinkSocket.open();
  try {
    return selectLinks(rq, opts);
  } finally {
    rq.close();
  }
}
