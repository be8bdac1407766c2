/**
 * Which BMC user ids the agent writes on which vendor's boards, as go-hal does: the
 * vendor is guessed from DMI `board_vendor` by a case-insensitive substring
 * (metal-stack/go-hal@4ca05b53 pkg/api/types.go:207-232), the users per vendor come from
 * its vendor files (supermicro.go:127-150, lenovo/lenovo.go:106-128,
 * gigabyte/gigabyte.go:107-129; Dell from go-hal master metal-stack/go-hal@cfb22dd4
 * internal/vendors/dell/dell.go:114-136). All use channel 1. Pure.
 */

export interface BmcUser {
  readonly name: string;
  readonly id: number;
  readonly channel: number;
}

export interface BmcVendor {
  /** go-hal's name of the vendor. */
  readonly name: string;
  /** The user the agent creates and reports in Register (random password, Administrator). */
  readonly metal: BmcUser;
  /** The user SuperUserPassword's password is set on. */
  readonly superUser: BmcUser;
}

const VENDORS: readonly { readonly match: string; readonly vendor: BmcVendor }[] = [
  { match: "supermicro", vendor: { name: "Supermicro", metal: { name: "metal", id: 10, channel: 1 }, superUser: { name: "root", id: 4, channel: 1 } } },
  // Novarion boards are Supermicro boards (go-hal connect.go:33 uses the Supermicro implementation).
  { match: "novarion-systems", vendor: { name: "Novarion-Systems", metal: { name: "metal", id: 10, channel: 1 }, superUser: { name: "root", id: 4, channel: 1 } } },
  { match: "lenovo", vendor: { name: "Lenovo", metal: { name: "metal", id: 3, channel: 1 }, superUser: { name: "root", id: 4, channel: 1 } } },
  { match: "dell", vendor: { name: "Dell", metal: { name: "metal", id: 3, channel: 1 }, superUser: { name: "root", id: 4, channel: 1 } } },
  { match: "giga computing", vendor: { name: "Giga Computing", metal: { name: "metal", id: 3, channel: 1 }, superUser: { name: "superuser", id: 4, channel: 1 } } },
];

/** The vendor of a DMI board_vendor string, or undefined when go-hal knows none (it then refuses in-band access). */
export function bmcVendor(boardVendor: string): BmcVendor | undefined {
  const given = boardVendor.trim().toLowerCase();
  if (given === "") return undefined;
  return VENDORS.find((v) => given.includes(v.match))?.vendor;
}

/** IPMI Administrator privilege (go-hal pkg/api/types.go:19-31: Callback 1 .. Administrator 4). */
export const ADMINISTRATOR = 4;
