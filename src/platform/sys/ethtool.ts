/**
 * A NIC driver's private flags over the SIOCETHTOOL ioctl (include/uapi/linux/ethtool.h),
 * what `ethtool --show-priv-flags` / `--set-priv-flags` do, through bun:ffi:
 * ETHTOOL_GSSET_INFO for the number of flags, ETHTOOL_GSTRINGS for their names (32
 * bytes each), ETHTOOL_GPFLAGS / ETHTOOL_SPFLAGS for the 32-bit value. A driver
 * without private flags answers a count of 0 (veth, virtio) or EOPNOTSUPP.
 */
import { ptr } from "bun:ffi";
import { AgentError } from "../errors.ts";
import { errnoName } from "./errno.ts";
import { libc, SOCK_CLOEXEC, SOCK_DGRAM } from "./libc.ts";

export const SIOCETHTOOL = 0x8946;
export const ETHTOOL_GSTRINGS = 0x1b;
export const ETHTOOL_GPFLAGS = 0x27;
export const ETHTOOL_SPFLAGS = 0x28;
export const ETHTOOL_GSSET_INFO = 0x37;
export const ETH_SS_PRIV_FLAGS = 2;
export const ETH_GSTRING_LEN = 32;
const IFNAMSIZ = 16;
const AF_INET = 2;
const EOPNOTSUPP = 95;

export class EthtoolError extends AgentError {
  constructor(
    readonly what: string,
    readonly errno: number,
  ) {
    super("netlink", `${what}: ${errnoName(errno)}`, { errno, errnoName: errnoName(errno) });
  }
}

const ioctl = (fd: number, req: number, arg: Uint8Array): number => libc().ioctl(fd, req, arg);

/** struct ifreq with ifr_data pointing at `data` (the caller keeps `data` alive during the call). */
export function ifreqWithData(ifname: string, data: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(ifname);
  if (name.byteLength >= IFNAMSIZ) throw new AgentError("usage", `interface name ${JSON.stringify(ifname)}: longer than ${IFNAMSIZ - 1} bytes`);
  const ifr = new Uint8Array(40);
  ifr.set(name, 0);
  new DataView(ifr.buffer).setBigUint64(IFNAMSIZ, BigInt(ptr(data)), true);
  return ifr;
}

function call(ifname: string, data: Uint8Array, what: string): number {
  const c = libc();
  const fd = c.socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new EthtoolError(`socket for ${what}`, c.errno());
  try {
    const ifr = ifreqWithData(ifname, data);
    return ioctl(fd, SIOCETHTOOL, ifr) < 0 ? c.errno() : 0;
  } finally {
    c.close(fd);
  }
}

export interface PrivFlags {
  /** Flag names in bit order (bit i = names[i]). */
  readonly names: readonly string[];
  readonly value: number;
}

/** The driver's private flags; none (names []) when the driver has none. */
export function readPrivFlags(ifname: string): PrivFlags {
  const info = new Uint8Array(16 + 4); // cmd, reserved, sset_mask (u64), data[1]
  const iv = new DataView(info.buffer);
  iv.setUint32(0, ETHTOOL_GSSET_INFO, true);
  iv.setBigUint64(8, 1n << BigInt(ETH_SS_PRIV_FLAGS), true);
  let e = call(ifname, info, `ETHTOOL_GSSET_INFO on ${ifname}`);
  if (e === EOPNOTSUPP) return { names: [], value: 0 };
  if (e) throw new EthtoolError(`read the private flag count of ${ifname} (ETHTOOL_GSSET_INFO)`, e);
  const count = iv.getBigUint64(8, true) === 0n ? 0 : iv.getUint32(16, true);
  if (count === 0) return { names: [], value: 0 };
  if (count > 32) throw new EthtoolError(`${ifname} reports ${count} private flags (at most 32 fit the flag word)`, 22);
  const strings = new Uint8Array(12 + count * ETH_GSTRING_LEN); // cmd, string_set, len, data
  const sv = new DataView(strings.buffer);
  sv.setUint32(0, ETHTOOL_GSTRINGS, true);
  sv.setUint32(4, ETH_SS_PRIV_FLAGS, true);
  sv.setUint32(8, count, true);
  e = call(ifname, strings, `ETHTOOL_GSTRINGS on ${ifname}`);
  if (e) throw new EthtoolError(`read the private flag names of ${ifname} (ETHTOOL_GSTRINGS)`, e);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const raw = strings.subarray(12 + i * ETH_GSTRING_LEN, 12 + (i + 1) * ETH_GSTRING_LEN);
    const end = raw.indexOf(0);
    names.push(new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end)));
  }
  const v = new Uint8Array(8); // struct ethtool_value { cmd, data }
  const vv = new DataView(v.buffer);
  vv.setUint32(0, ETHTOOL_GPFLAGS, true);
  e = call(ifname, v, `ETHTOOL_GPFLAGS on ${ifname}`);
  if (e) throw new EthtoolError(`read the private flags of ${ifname} (ETHTOOL_GPFLAGS)`, e);
  return { names, value: vv.getUint32(4, true) };
}

export function writePrivFlags(ifname: string, value: number): void {
  const v = new Uint8Array(8);
  const vv = new DataView(v.buffer);
  vv.setUint32(0, ETHTOOL_SPFLAGS, true);
  vv.setUint32(4, value >>> 0, true);
  const e = call(ifname, v, `ETHTOOL_SPFLAGS on ${ifname}`);
  if (e) throw new EthtoolError(`set the private flags of ${ifname} (ETHTOOL_SPFLAGS)`, e);
}
