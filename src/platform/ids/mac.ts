/**
 * The one MAC rule: what the apiserver takes for every MachineNic mac, neighbours too
 * (metal-stack/api@e6201fcb proto/metalstack/api/v2/predefined_rules.proto:12-14: six
 * hex pairs joined by ':', either case), and the agent's own form of a MAC: lower case
 * with ':' (what Linux shows in sysfs and netlink, and the apiserver stores). Pure.
 */
export const MAC_RE = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

/** What an error says was expected. */
export const MAC_EXPECTED = "six hex pairs separated by ':' (52:54:00:12:34:56)";

/** Whether `s` passes the apiserver's mac rule. */
export const isMac = (s: string): boolean => MAC_RE.test(s);

const TYPED = /^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$/;

/**
 * A MAC as a person types it (pairs joined by ':' or '-', either case) in the agent's form (aa:bb:cc:dd:ee:ff), or undefined when it is not one.
 */
export function normaliseMac(s: string): string | undefined {
  return TYPED.test(s) ? s.toLowerCase().replaceAll("-", ":") : undefined;
}

const hex2 = (n: number): string => n.toString(16).padStart(2, "0");

/** Link-layer address bytes as lower-case hex pairs joined by ':' (any length: an OUI is 3 bytes, InfiniBand 20). */
export function macText(bytes: Uint8Array): string {
  return Array.from(bytes, hex2).join(":");
}

/** The six bytes of a MAC in the apiserver's form; throws naming the MAC when it is not one. */
export function macBytes(mac: string): Uint8Array {
  if (!isMac(mac)) throw new Error(`MAC ${JSON.stringify(mac)}: expected ${MAC_EXPECTED}`);
  return new Uint8Array(mac.split(":").map((p) => parseInt(p, 16)));
}
