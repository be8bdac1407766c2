/**
 * Per-interface bring-up state machine. Pure: fed decoded rtnetlink messages and
 * the time (ms) by the shell, it keeps the facts (link flags, addresses with flags,
 * default routes, RA prefixes, RA DNS with lifetimes) and reports each milestone
 * once, as a vocabulary event with its timestamp:
 *
 *   admin up -> carrier -> link-local usable -> RA seen -> global address tentative
 *   -> global address usable (DAD done) -> default route -> DNS
 *
 * Readiness is computed from the current facts, so a link flap (addresses turn
 * tentative again, routes go) is followed and recovered from. A DAD failure is
 * terminal for the interface and reported at once.
 */
import type { EventName } from "../../platform/log/events.ts";
import * as K from "../netlink/constants.ts";
import type { AddrMsg, Body, LinkMsg, PrefixMsg, RouteMsg, UserOptMsg } from "../netlink/message.ts";
import { isDnssl, isRdnss } from "../netlink/ndopt.ts";

export interface Emit {
  readonly event: EventName;
  readonly t: number;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly level: "info" | "warn" | "error";
}

export interface AddrState {
  readonly address: string;
  readonly prefixlen: number;
  readonly flags: number;
  readonly scope: number;
  readonly preferred: number | undefined;
  readonly valid: number | undefined;
}

/** Where an interface is: the first milestone not (currently) reached. */
export type Step = "gone" | "admin" | "carrier" | "ra" | "prefix" | "address" | "dad" | "route" | "dns" | "ready" | "failed";

const INFINITE = 0xffffffff;
/**
 * RA DNS kept per interface: resolv.conf honours 3 nameservers and 6 search domains
 * (glibc MAXNS, MAXDNSRCH), so more are never useful. When the list is full, a new
 * entry replaces the one that expires first, unless the new one expires sooner still.
 */
export const MAX_DNS_SERVERS = 3;
export const MAX_DNS_SEARCH = 6;

/** Adds or refreshes `key` in a bounded map of expiry times. */
function keepBounded(m: Map<string, number>, key: string, expiry: number, max: number): void {
  if (m.has(key) || m.size < max) {
    m.set(key, expiry);
    return;
  }
  let first: string | undefined;
  for (const [k, e] of m) if (first === undefined || e < (m.get(first) ?? Infinity)) first = k;
  if (first === undefined || (m.get(first) ?? Infinity) > expiry) return;
  m.delete(first);
  m.set(key, expiry);
}
const USABLE_MASK = K.IFA_F_TENTATIVE | K.IFA_F_DADFAILED;

export class InterfaceMachine {
  adminUp = false;
  carrier = false;
  operUp = false;
  readonly addrs = new Map<string, AddrState>();
  /** Default routers (gateway link-local) via this interface. */
  readonly routers = new Set<string>();
  /** RA prefixes: prefix/len -> autonomous flag. */
  readonly prefixes = new Map<string, boolean>();
  raSeen = false;
  failed: { address: string } | undefined;
  /** RDNSS servers and DNSSL domains with expiry time (ms, Infinity for 0xffffffff). */
  readonly dnsServers = new Map<string, number>();
  readonly dnsSearch = new Map<string, number>();
  /** When carrier was last lost, or undefined while carrier is up. */
  carrierLostAt: number | undefined;
  /** First time each milestone was reached (ms, shell clock). */
  readonly milestones = new Map<EventName, number>();
  /** Set when the shell should dump addresses (an RA came: the tentative address is not announced). */
  wantAddrDump = false;
  /** The kernel deleted the link (RTM_DELLINK); a link re-created with the same name gets a new machine. */
  gone = false;

  constructor(
    readonly ifindex: number,
    readonly name: string,
    public mac: string,
    readonly startedAt: number,
  ) {
    this.carrierLostAt = startedAt;
  }

  private once(out: Emit[], event: EventName, t: number, fields: Record<string, unknown> = {}, level: Emit["level"] = "info"): void {
    if (this.milestones.has(event)) return;
    this.milestones.set(event, t);
    out.push({ event, t, fields: { ifname: this.name, ...fields }, level });
  }

  /** Applies one message; returns the milestones it caused (possibly none). */
  apply(b: Body, t: number): Emit[] {
    const out: Emit[] = [];
    switch (b.kind) {
      case "link":
        if (b.ifindex === this.ifindex && b.family !== K.AF_INET6) b.op === "del" ? this.onGone(t, out) : this.onLink(b, t, out);
        break;
      case "addr":
        if (b.ifindex === this.ifindex && b.family === K.AF_INET6) this.onAddr(b, t, out);
        break;
      case "route":
        if (b.oif === this.ifindex && b.family === K.AF_INET6) this.onRoute(b, t, out);
        break;
      case "prefix":
        if (b.ifindex === this.ifindex) this.onPrefix(b, t, out);
        break;
      case "useropt":
        if (b.ifindex === this.ifindex) this.onUserOpt(b, t, out);
        break;
      default:
        break;
    }
    return out;
  }

  private onLink(b: LinkMsg, t: number, out: Emit[]): void {
    if (b.mac) this.mac = b.mac;
    this.adminUp = (b.flags & K.IFF_UP) !== 0;
    if (this.adminUp) this.once(out, "net.link.up", t);
    const carrier = (b.flags & K.IFF_LOWER_UP) !== 0 && this.adminUp;
    this.operUp = b.operstate === K.IF_OPER_UP;
    if (carrier && !this.carrier) {
      this.carrierLostAt = undefined;
      if (this.milestones.has("net.link.carrier")) out.push({ event: "net.link.carrier", t, fields: { ifname: this.name, again: true }, level: "info" });
      this.once(out, "net.link.carrier", t);
    } else if (!carrier && this.carrier) {
      this.carrierLostAt = t;
      this.routers.clear();
      out.push({ event: "net.link.down", t, fields: { ifname: this.name }, level: "warn" });
    }
    this.carrier = carrier;
  }

  /** The link was deleted: no carrier from now on, nothing of it is left. */
  onGone(t: number, out: Emit[] = []): Emit[] {
    if (this.gone) return out;
    this.gone = true;
    this.adminUp = this.carrier = this.operUp = false;
    this.carrierLostAt = t;
    this.addrs.clear();
    this.routers.clear();
    out.push({ event: "net.link.gone", t, fields: { ifname: this.name, ifindex: this.ifindex }, level: "warn" });
    return out;
  }

  private onAddr(b: AddrMsg, t: number, out: Emit[]): void {
    if (!b.address) return;
    const isLL = b.scope === K.RT_SCOPE_LINK;
    const dadFailed = (b.flags & K.IFA_F_DADFAILED) !== 0;
    if (b.op === "del") {
      this.addrs.delete(b.address);
      if (dadFailed) this.fail(b.address, t, out);
      return;
    }
    this.addrs.set(b.address, { address: b.address, prefixlen: b.prefixlen, flags: b.flags, scope: b.scope, preferred: b.cacheinfo?.preferred, valid: b.cacheinfo?.valid });
    if (dadFailed) return this.fail(b.address, t, out);
    const tentative = (b.flags & K.IFA_F_TENTATIVE) !== 0;
    if (isLL) {
      if (!tentative) this.once(out, "net.ll.ready", t, { address: b.address });
      return;
    }
    if (b.scope !== K.RT_SCOPE_UNIVERSE) return;
    if (tentative) this.once(out, "net.addr.tentative", t, { address: `${b.address}/${b.prefixlen}`, optimistic: (b.flags & K.IFA_F_OPTIMISTIC) !== 0 });
    else this.once(out, "net.dad.done", t, { address: `${b.address}/${b.prefixlen}` });
  }

  private fail(address: string, t: number, out: Emit[]): void {
    if (this.failed) return;
    this.failed = { address };
    this.once(out, "net.dad.failed", t, { address }, "error");
  }

  private sawRa(t: number, out: Emit[], from: string | undefined): void {
    if (!this.raSeen) this.wantAddrDump = true;
    this.raSeen = true;
    this.once(out, "net.ra.seen", t, from ? { router: from } : {});
  }

  private onRoute(b: RouteMsg, t: number, out: Emit[]): void {
    if (b.dstLen !== 0 || b.table !== K.RT_TABLE_MAIN || !b.gateway) return;
    if (b.op === "del") {
      this.routers.delete(b.gateway);
      return;
    }
    if (b.protocol === K.RTPROT_RA) this.sawRa(t, out, b.gateway);
    this.routers.add(b.gateway);
    this.once(out, "net.route.default", t, { via: b.gateway });
  }

  private onPrefix(b: PrefixMsg, t: number, out: Emit[]): void {
    if (!b.prefix) return;
    this.sawRa(t, out, undefined);
    this.wantAddrDump = this.globalUsable().length === 0;
    this.prefixes.set(`${b.prefix}/${b.prefixlen}`, (b.flags & K.ND_PREFIX_FLAG_AUTONOMOUS) !== 0);
  }

  private onUserOpt(b: UserOptMsg, t: number, out: Emit[]): void {
    if (b.icmpType !== K.ICMPV6_ND_ROUTER_ADVERT) return;
    this.sawRa(t, out, b.source);
    const before = this.dnsKey();
    for (const o of b.options) {
      const expiry = (lifetime: number) => (lifetime === INFINITE ? Infinity : t + lifetime * 1000);
      if (isRdnss(o)) for (const s of o.servers) o.lifetime === 0 ? this.dnsServers.delete(s) : keepBounded(this.dnsServers, s, expiry(o.lifetime), MAX_DNS_SERVERS);
      else if (isDnssl(o)) for (const d of o.domains) o.lifetime === 0 ? this.dnsSearch.delete(d) : keepBounded(this.dnsSearch, d, expiry(o.lifetime), MAX_DNS_SEARCH);
    }
    this.dnsChanged(before, t, out);
  }

  private dnsKey(): string {
    return `${[...this.dnsServers.keys()].join(",")}|${[...this.dnsSearch.keys()].join(",")}`;
  }
  private dnsChanged(before: string, t: number, out: Emit[]): void {
    if (this.dnsKey() === before) return;
    out.push({ event: "net.dns", t, fields: { ifname: this.name, servers: [...this.dnsServers.keys()], search: [...this.dnsSearch.keys()] }, level: "info" });
    if (!this.milestones.has("net.dns")) this.milestones.set("net.dns", t);
  }

  /** Expires RA DNS entries whose lifetime ran out; returns net.dns when that changed anything. */
  tick(t: number): Emit[] {
    const out: Emit[] = [];
    const before = this.dnsKey();
    for (const m of [this.dnsServers, this.dnsSearch]) for (const [k, exp] of m) if (exp <= t) m.delete(k);
    this.dnsChanged(before, t, out);
    return out;
  }

  /** The next time an RA DNS entry expires (for the shell's timer). */
  nextExpiry(): number {
    return Math.min(Infinity, ...this.dnsServers.values(), ...this.dnsSearch.values());
  }

  /** Forget addresses and routes before feeding a fresh dump (after ENOBUFS). */
  resetForResync(): void {
    this.addrs.clear();
    this.routers.clear();
  }

  globalUsable(): AddrState[] {
    return [...this.addrs.values()].filter((a) => a.scope === K.RT_SCOPE_UNIVERSE && (a.flags & USABLE_MASK) === 0);
  }
  globalTentative(): AddrState[] {
    return [...this.addrs.values()].filter((a) => a.scope === K.RT_SCOPE_UNIVERSE && (a.flags & K.IFA_F_TENTATIVE) !== 0 && (a.flags & K.IFA_F_DADFAILED) === 0);
  }
  linkLocalReady(): boolean {
    return [...this.addrs.values()].some((a) => a.scope === K.RT_SCOPE_LINK && (a.flags & USABLE_MASK) === 0);
  }

  step(dnsNeeded: boolean): Step {
    if (this.failed) return "failed";
    if (this.gone) return "gone";
    if (!this.adminUp) return "admin";
    if (!this.carrier) return "carrier";
    const usable = this.globalUsable().length > 0;
    if (!this.raSeen && !usable) return "ra";
    if (!usable) {
      if (this.globalTentative().length > 0) return "dad";
      if (![...this.prefixes.values()].some((a) => a)) return "prefix";
      return "address";
    }
    if (this.routers.size === 0) return "route";
    if (dnsNeeded && this.dnsServers.size === 0) return "dns";
    return "ready";
  }

  /** One line saying where the interface is stuck, for the timeout error. */
  explain(dnsNeeded: boolean, now: number): string {
    const s = Math.round((now - this.startedAt) / 1000);
    const n = this.name;
    switch (this.step(dnsNeeded)) {
      case "failed":
        return `${n}: duplicate address ${this.failed?.address} (DAD failed)`;
      case "gone":
        return `${n}: interface disappeared (deleted and not re-created; ${s}s since start)`;
      case "admin":
        return `${n}: link did not come up (administratively down)`;
      case "carrier":
        return `${n}: no carrier after ${s}s`;
      case "ra":
        return `${n}: no router advertisement after ${s}s${this.linkLocalReady() ? "" : " (link-local address still tentative)"}`;
      case "prefix":
        return this.prefixes.size === 0
          ? `${n}: router advertisement carries no prefix, so no SLAAC address`
          : `${n}: no SLAAC address: prefix ${[...this.prefixes.keys()].join(", ")} has the autonomous flag off`;
      case "address":
        return `${n}: no global address formed from prefix ${[...this.prefixes.keys()].join(", ")} after ${s}s`;
      case "dad":
        return `${n}: address ${this.globalTentative()
          .map((a) => a.address)
          .join(", ")} still tentative (DAD running) after ${s}s`;
      case "route":
        return `${n}: address ${this.globalUsable()
          .map((a) => a.address)
          .join(", ")} usable but no default route (router lifetime 0: the router is not a default router)`;
      case "dns":
        return `${n}: no DNS server (RDNSS) in the router advertisements after ${s}s`;
      case "ready":
        return `${n}: ready`;
    }
  }
}
