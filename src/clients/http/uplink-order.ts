/**
 * Which uplink a new connection tries first, and why connections moved to another
 * (docs/network.md "Uplinks"). Pure. A working uplink stays preferred until it fails:
 * the preferred one goes first, the others follow in the order the network gives
 * (its routers' preference); without a preferred one (the first connection, or it is
 * no uplink any more) the network's order alone.
 */

/** A local address to bind a connection to, and the NIC it belongs to (network/net's Uplink is one). */
export interface LocalUplink {
  readonly name: string;
  readonly address: string;
}

/** The uplinks now, in the network's order (network/net/uplink-table.ts). */
export interface UplinkSource {
  current(): readonly LocalUplink[];
}

export function attemptOrder<U extends LocalUplink>(uplinks: readonly U[], preferred: string | undefined): U[] {
  const first = uplinks.find((u) => u.name === preferred);
  return first ? [first, ...uplinks.filter((u) => u !== first)] : [...uplinks];
}

/** What an attempt that did not win came to: its error, or still connecting when another won. */
export type Lost = { readonly failed: unknown } | { readonly pending: true };

/** The error's code (UND_ERR_CONNECT_TIMEOUT, ECONNREFUSED, ENETUNREACH) or its message. */
export function errorWords(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${e.message} (${code})` : e.message;
  }
  return String(e);
}

/**
 * Why connections left `from` (the uplink tried first, or the preferred one that is no
 * uplink any more) for the winner, in words for the `http.uplink` line.
 */
export function switchReason(from: string, lost: Lost | undefined, delayMs: number): string {
  if (lost === undefined) return `${from} is no uplink any more (carrier, address or router gone)`;
  if ("failed" in lost) return `connect through ${from} failed: ${errorWords(lost.failed)}`;
  return `no connection through ${from} within the connect-attempt delay of ${delayMs} ms`;
}
