/**
 * An LLDP neighbour as the receiver decodes one (network/lldp/neighbour.ts), for tests that
 * build Register requests: a switch port with a local port id (subtype 3) and a 120 s TTL;
 * each test sets what it is about.
 */
import type { LldpNeighbour } from "../../src/network/lldp/neighbour.ts";

export function lldpNeighbour(n: Pick<LldpNeighbour, "systemName" | "portId"> & Partial<LldpNeighbour>): LldpNeighbour {
  return { interface: "eth0", chassisId: "0c:00:00:00:00:aa", chassisIdSubtype: 4, portIdSubtype: 3, portDescription: "swp1", ttlSeconds: 120, managementAddresses: [], ...n };
}
