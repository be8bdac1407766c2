/**
 * What an LLDP frame received on one of our NICs says about the switch port at the
 * other end (IEEE 802.1AB). Produced by src/network/lldp/ (decoder + receiver); consumed by
 * Register (src/agent/neighbours.ts maps it to the v2 neighbour fields).
 */
import { isMac } from "../../platform/ids/mac.ts";
import { CHASSIS_ID_MAC, PORT_ID_MAC } from "./lldpdu.ts";

export interface LldpNeighbour {
  /** Our interface the frame arrived on. */
  readonly interface: string;
  readonly chassisId: string;
  /** IEEE 802.1AB chassis ID subtype (4 = MAC address, 7 = locally assigned, ...). */
  readonly chassisIdSubtype: number;
  readonly portId: string;
  /** IEEE 802.1AB port ID subtype (3 = MAC address, 5 = interface name, 7 = locally assigned, ...). */
  readonly portIdSubtype: number;
  readonly portDescription: string;
  readonly systemName: string;
  readonly ttlSeconds: number;
  readonly managementAddresses: readonly string[];
}

/**
 * The MAC address this neighbour announces: its Port ID when that is a MAC (lldpd's
 * default, Cumulus), else its Chassis ID when that is one (SONiC, whose Port ID is
 * the port's alias); undefined when neither is. Pure.
 */
export function neighbourMac(
  n: Pick<LldpNeighbour, "portId" | "portIdSubtype" | "chassisId" | "chassisIdSubtype">,
): { readonly mac: string; readonly from: "port id" | "chassis id" } | undefined {
  if (n.portIdSubtype === PORT_ID_MAC && isMac(n.portId)) return { mac: n.portId, from: "port id" };
  if (n.chassisIdSubtype === CHASSIS_ID_MAC && isMac(n.chassisId)) return { mac: n.chassisId, from: "chassis id" };
  return undefined;
}

/** One NIC to listen (and announce) on. */
export interface LldpInterface {
  readonly name: string;
  readonly ifindex: number;
  readonly mac: string;
}

/** A running LLDP receiver/announcer over the given NICs (src/network/lldp/session.ts). */
export interface LldpSession {
  /** Neighbours seen so far, by our interface name; expired ones (TTL) are dropped. */
  neighbours(): ReadonlyMap<string, readonly LldpNeighbour[]>;
  /**
   * Resolves once neighbours with `count` distinct system names are seen, or when
   * `timeoutMs` passes (then with what was seen: the caller decides). close() ends a
   * pending wait the same way; an abort of `signal` rejects with the signal's reason.
   */
  waitForSwitches(count: number, timeoutMs: number, signal?: AbortSignal): Promise<ReadonlyMap<string, readonly LldpNeighbour[]>>;
  close(): Promise<void>;
}
