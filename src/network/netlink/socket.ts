/**
 * The rtnetlink socket (NETLINK_ROUTE over bun:ffi): requests with sequence
 * numbers, dumps read to NLMSG_DONE, link changes with ACKs, kernel errnos mapped
 * to named AgentErrors("netlink"). Bound everywhere: every read waits at most the
 * given timeout. The same class opens the event socket (groups joined, big buffer),
 * whose reading a Worker does (event-source.ts).
 */
import { AgentError } from "../../platform/errors.ts";
import * as K from "./constants.ts";
import { errnoName, EAGAIN, EINTR } from "../../platform/sys/errno.ts";
import { decodeMessages, type Body, type Message } from "./message.ts";
import { dumpAddrsRequest, dumpLinksRequest, dumpRoutesRequest, setLinkUpRequest } from "./request.ts";
import { int32, libc, pollOnce, MSG_DONTWAIT, SOCK_CLOEXEC, SOCK_NONBLOCK, SOCK_RAW, SOL_SOCKET, SO_RCVBUF, SO_RCVBUFFORCE, type Libc } from "../../platform/sys/libc.ts";

export class NetlinkError extends AgentError {
  constructor(
    what: string,
    readonly errno: number,
    extra = "",
  ) {
    super("netlink", `${what}: ${errnoName(errno)}${extra ? ` (${extra})` : ""}`, { errno, errnoName: errnoName(errno) });
  }
}

function sockaddrNl(groups = 0): Uint8Array {
  const b = new Uint8Array(12);
  const dv = new DataView(b.buffer);
  dv.setUint16(0, K.AF_NETLINK, true);
  dv.setUint32(8, groups, true);
  return b;
}

const RECV_BUF = 256 * 1024;

export interface OpenOptions {
  /** RTNLGRP_* numbers to join (the event socket). */
  groups?: readonly number[];
  /** SO_RCVBUFFORCE bytes (falls back to SO_RCVBUF when not privileged). */
  rcvbuf?: number;
}

export class NetlinkSocket {
  private seq = Math.floor(Math.random() * 0x7fff_0000);
  private readonly buf = new Uint8Array(RECV_BUF);
  private closed = false;

  private constructor(
    private readonly c: Libc,
    readonly fd: number,
  ) {}

  static open(opts: OpenOptions = {}): NetlinkSocket {
    const c = libc();
    const fd = c.socket(K.AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, K.NETLINK_ROUTE);
    if (fd < 0) throw new NetlinkError("netlink socket(AF_NETLINK, NETLINK_ROUTE)", c.errno());
    const s = new NetlinkSocket(c, fd);
    try {
      const addr = sockaddrNl();
      if (c.bind(fd, addr, addr.byteLength) < 0) throw new NetlinkError("netlink bind", c.errno());
      const one = int32(1);
      c.setsockopt(fd, K.SOL_NETLINK, K.NETLINK_EXT_ACK, one, 4); // best effort: error strings from the kernel
      if (opts.rcvbuf) {
        const size = int32(opts.rcvbuf);
        if (c.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4) < 0) c.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4);
      }
      for (const g of opts.groups ?? []) {
        if (c.setsockopt(fd, K.SOL_NETLINK, K.NETLINK_ADD_MEMBERSHIP, int32(g), 4) < 0) throw new NetlinkError(`netlink join group ${g}`, c.errno());
      }
    } catch (e) {
      s.close();
      throw e;
    }
    return s;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.c.close(this.fd);
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) >>> 0;
    return this.seq;
  }

  private send(what: string, msg: Uint8Array): void {
    const dst = sockaddrNl();
    const n = this.c.sendto(this.fd, msg, msg.byteLength, 0, dst, dst.byteLength);
    if (n < 0) throw new NetlinkError(what, this.c.errno());
  }

  /** Reads until the answer to `seq` is complete; messages for other sequences are skipped. */
  private collect(what: string, seq: number, timeoutMs: number): Message[] {
    const out: Message[] = [];
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) throw new AgentError("netlink", `${what}: no answer from the kernel within ${timeoutMs} ms`, {});
      const p = pollOnce(this.c, this.fd, left);
      if (p.errno && p.errno !== EINTR) throw new NetlinkError(`${what}: poll`, p.errno);
      if (!p.ready) continue;
      const n = this.c.recv(this.fd, this.buf, this.buf.byteLength, MSG_DONTWAIT);
      if (n < 0) {
        const e = this.c.errno();
        if (e === EAGAIN || e === EINTR) continue;
        throw new NetlinkError(`${what}: recv`, e);
      }
      for (const m of decodeMessages(this.buf.subarray(0, n))) {
        if (m.header.seq !== seq) continue;
        const b = m.body;
        if (b.kind === "error") {
          if (b.errno === 0) return out;
          throw new NetlinkError(what, b.errno, b.extAckMsg);
        }
        if (b.kind === "done") return out;
        out.push(m);
      }
    }
  }

  /** One request; returns the messages of the answer (dump parts, or nothing for an ACK). */
  request(what: string, build: (seq: number) => Uint8Array, timeoutMs = 2000): Message[] {
    const seq = this.nextSeq();
    this.send(what, build(seq));
    return this.collect(what, seq, timeoutMs);
  }

  dumpLinks(): Body[] {
    return this.request("dump links (RTM_GETLINK)", dumpLinksRequest).map((m) => m.body);
  }
  dumpAddrs(): Body[] {
    return this.request("dump IPv6 addresses (RTM_GETADDR)", (s) => dumpAddrsRequest(s)).map((m) => m.body);
  }
  dumpRoutes(): Body[] {
    return this.request("dump IPv6 routes (RTM_GETROUTE)", (s) => dumpRoutesRequest(s)).map((m) => m.body);
  }
  /** Raw datagram bytes of a dump, for recording fixtures. */
  rawRequest(build: (seq: number) => Uint8Array, timeoutMs = 2000): Uint8Array[] {
    const seq = this.nextSeq();
    this.send("raw request", build(seq));
    const chunks: Uint8Array[] = [];
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const p = pollOnce(this.c, this.fd, deadline - performance.now());
      if (!p.ready) continue;
      const n = this.c.recv(this.fd, this.buf, this.buf.byteLength, MSG_DONTWAIT);
      if (n <= 0) continue;
      const chunk = this.buf.slice(0, n);
      chunks.push(chunk);
      if (decodeMessages(chunk).some((m) => m.header.seq === seq && (m.body.kind === "done" || m.body.kind === "error"))) break;
    }
    return chunks;
  }
  /** One raw datagram, or undefined after timeoutMs (recording fixtures, tools). */
  recvRaw(timeoutMs: number): Uint8Array | undefined {
    const p = pollOnce(this.c, this.fd, timeoutMs);
    if (!p.ready) return undefined;
    const n = this.c.recv(this.fd, this.buf, this.buf.byteLength, MSG_DONTWAIT);
    if (n < 0) throw new NetlinkError("recv", this.c.errno());
    return this.buf.slice(0, n);
  }
  setLinkUp(ifindex: number, name: string, up = true): void {
    this.request(`set link ${name} ${up ? "up" : "down"} (RTM_NEWLINK)`, (s) => setLinkUpRequest(s, ifindex, up));
  }
}
