/**
 * An AF_PACKET socket for one NIC and one ethertype, over bun:ffi (packet(7)):
 * SOCK_RAW (whole Ethernet frames), non-blocking, bound to the interface, optionally
 * joined to a multicast group (PACKET_ADD_MEMBERSHIP), deaf to its own outgoing
 * frames (PACKET_IGNORE_OUTGOING), with a send priority. Reading is done elsewhere
 * (a Worker polls the fd); this file opens, sends, clears errors and closes.
 *
 * A packet socket bound while its link is down latches ENETDOWN in sk_err (the
 * kernel's packet_do_bind): poll() then reports POLLERR until SO_ERROR is read, while
 * the socket receives normally once the link comes up (docs/lldp.md, measured). open() clears
 * it, and so must whoever polls the fd (clearError).
 */
import { AgentError } from "../errors.ts";
import { errnoName } from "./errno.ts";
import { int32, libc, SOCK_CLOEXEC, SOCK_NONBLOCK, SOCK_RAW, SOL_SOCKET, SO_ERROR, type Libc, AF_PACKET } from "./libc.ts";

export const SOL_PACKET = 263;
export const PACKET_ADD_MEMBERSHIP = 1;
export const PACKET_MR_MULTICAST = 0;
/** Linux >= 4.20: frames this host sends are not delivered to this socket. */
export const PACKET_IGNORE_OUTGOING = 23;
export const SO_PRIORITY = 12;
/** TC_PRIO_CONTROL (include/uapi/linux/pkt_sched.h): go-lldpd sets it, else some Intel NICs hold the frames back. */
export const TC_PRIO_CONTROL = 7;
export const ENETDOWN = 100;

export const htons = (v: number): number => ((v & 0xff) << 8) | ((v >> 8) & 0xff);

export class PacketSocketError extends AgentError {
  constructor(
    readonly what: string,
    readonly errno: number,
  ) {
    super("netlink", `${what}: ${errnoName(errno)}`, { errno, errnoName: errnoName(errno) });
  }
}

/** struct sockaddr_ll (20 bytes): family, protocol (network order), ifindex, hatype, pkttype, halen, addr[8]. */
export function sockaddrLl(ifindex: number, ethertype: number, mac?: Uint8Array): Uint8Array {
  const b = new Uint8Array(20);
  const dv = new DataView(b.buffer);
  dv.setUint16(0, AF_PACKET, true);
  dv.setUint16(2, htons(ethertype), true);
  dv.setInt32(4, ifindex, true);
  if (mac) {
    b[11] = mac.byteLength;
    b.set(mac.subarray(0, 8), 12);
  }
  return b;
}

/** struct packet_mreq (16 bytes): ifindex, type, alen, address[8]. */
export function packetMreq(ifindex: number, mac: Uint8Array): Uint8Array {
  const b = new Uint8Array(16);
  const dv = new DataView(b.buffer);
  dv.setInt32(0, ifindex, true);
  dv.setUint16(4, PACKET_MR_MULTICAST, true);
  dv.setUint16(6, mac.byteLength, true);
  b.set(mac.subarray(0, 8), 8);
  return b;
}

export interface PacketSocketOptions {
  readonly ifindex: number;
  /** For error messages. */
  readonly ifname: string;
  readonly ethertype: number;
  /** Multicast group to join on the interface (e.g. LLDP's 01:80:c2:00:00:0e). */
  readonly multicast?: Uint8Array;
  readonly priority?: number;
}

/** Reads and so clears the socket's pending error (sk_err); returns it (0: none). */
export function clearSocketError(c: Libc, fd: number): number {
  const v = new Uint8Array(4);
  const len = int32(4);
  if (c.getsockopt(fd, SOL_SOCKET, SO_ERROR, v, len) < 0) return c.errno();
  return new DataView(v.buffer).getInt32(0, true);
}

export class PacketSocket {
  private closed = false;
  /** The error that was latched at open (ENETDOWN when the link was down), for the log. */
  readonly latched: number;

  private constructor(
    private readonly c: Libc,
    readonly fd: number,
    readonly opts: PacketSocketOptions,
    latched: number,
  ) {
    this.latched = latched;
  }

  static open(opts: PacketSocketOptions): PacketSocket {
    const c = libc();
    const on = `${opts.ifname} (ifindex ${opts.ifindex})`;
    const fd = c.socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(opts.ethertype));
    if (fd < 0) throw new PacketSocketError(`packet socket for ethertype 0x${opts.ethertype.toString(16)} on ${on}`, c.errno());
    try {
      // Not fatal on kernels older than 4.20: the reader also drops frames from our own MAC.
      c.setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, int32(1), 4);
      if (opts.priority !== undefined && c.setsockopt(fd, SOL_SOCKET, SO_PRIORITY, int32(opts.priority), 4) < 0) throw new PacketSocketError(`SO_PRIORITY on ${on}`, c.errno());
      const sll = sockaddrLl(opts.ifindex, opts.ethertype);
      if (c.bind(fd, sll, sll.byteLength) < 0) throw new PacketSocketError(`bind packet socket to ${on}`, c.errno());
      if (opts.multicast) {
        const mreq = packetMreq(opts.ifindex, opts.multicast);
        if (c.setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq, mreq.byteLength) < 0) throw new PacketSocketError(`join multicast group on ${on}`, c.errno());
      }
    } catch (e) {
      c.close(fd);
      throw e;
    }
    return new PacketSocket(c, fd, opts, clearSocketError(c, fd));
  }

  /** Sends one whole Ethernet frame; returns undefined or the errno (ENETDOWN while the link is down). */
  send(frame: Uint8Array): number | undefined {
    if (this.closed) return 9; // EBADF
    const dst = sockaddrLl(this.opts.ifindex, this.opts.ethertype, frame.subarray(0, 6));
    const n = this.c.sendto(this.fd, frame, frame.byteLength, 0, dst, dst.byteLength);
    return n < 0 ? this.c.errno() : undefined;
  }

  clearError(): number {
    return clearSocketError(this.c, this.fd);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.c.close(this.fd);
  }
}
