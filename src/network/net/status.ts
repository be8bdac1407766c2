/**
 * `net status` text, as readable as `networkctl status`. Pure: dumps in, lines out.
 */
import * as K from "../netlink/constants.ts";
import type { AddrMsg, Body, LinkMsg, RouteMsg } from "../netlink/message.ts";

export interface StatusView {
  readonly links: readonly {
    readonly name: string;
    readonly ifindex: number;
    readonly mac: string | undefined;
    readonly kind: string | undefined;
    readonly admin: "up" | "down";
    readonly carrier: boolean;
    readonly operstate: string;
    readonly mtu: number | undefined;
    readonly addresses: readonly { address: string; prefixlen: number; scope: string; flags: string[]; preferred: string; valid: string }[];
    readonly defaultRoutes: readonly { via: string; protocol: string; expires: string }[];
  }[];
  readonly dns: { readonly servers: readonly string[]; readonly search: readonly string[] };
}

export function flagNames(flags: number): string[] {
  return K.IFA_FLAG_NAMES.filter(([bit]) => flags & bit).map(([, n]) => n);
}

const life = (s: number | undefined) => (s === undefined ? "-" : s === 0xffffffff ? "forever" : `${s}s`);
const scopeName = (s: number) => ({ [K.RT_SCOPE_UNIVERSE]: "global", [K.RT_SCOPE_LINK]: "link", [K.RT_SCOPE_HOST]: "host", [K.RT_SCOPE_SITE]: "site" })[s] ?? String(s);
const protoName = (p: number) => ({ [K.RTPROT_RA]: "ra", [K.RTPROT_KERNEL]: "kernel", [K.RTPROT_BOOT]: "boot", [K.RTPROT_STATIC]: "static" })[p] ?? String(p);

export function statusView(bodies: readonly Body[], dns: StatusView["dns"]): StatusView {
  const links = bodies.filter((b): b is LinkMsg => b.kind === "link");
  const addrs = bodies.filter((b): b is AddrMsg => b.kind === "addr");
  const routes = bodies.filter((b): b is RouteMsg => b.kind === "route" && b.dstLen === 0 && b.table === K.RT_TABLE_MAIN && b.gateway !== undefined);
  return {
    links: links.map((l) => ({
      name: l.name ?? `#${l.ifindex}`,
      ifindex: l.ifindex,
      mac: l.mac,
      kind: l.linkKind,
      admin: l.flags & K.IFF_UP ? "up" : "down",
      carrier: (l.flags & K.IFF_LOWER_UP) !== 0,
      operstate: K.OPERSTATE_NAMES[l.operstate ?? 0] ?? String(l.operstate),
      mtu: l.mtu,
      addresses: addrs
        .filter((a) => a.ifindex === l.ifindex && a.address)
        .map((a) => ({
          address: a.address ?? "",
          prefixlen: a.prefixlen,
          scope: scopeName(a.scope),
          flags: flagNames(a.flags),
          preferred: life(a.cacheinfo?.preferred),
          valid: life(a.cacheinfo?.valid),
        })),
      defaultRoutes: routes
        .filter((r) => r.oif === l.ifindex)
        .map((r) => ({ via: r.gateway ?? "", protocol: protoName(r.protocol), expires: r.expiresS === undefined ? "never" : `${Math.round(r.expiresS)}s` })),
    })),
    dns,
  };
}

export function renderStatus(v: StatusView): string {
  const out: string[] = [];
  for (const l of v.links) {
    out.push(`● ${l.ifindex}: ${l.name}${l.kind ? ` (${l.kind})` : ""}`);
    out.push(`        State: ${l.admin === "up" ? "up" : "administratively down"}, carrier ${l.carrier ? "yes" : "no"}, operstate ${l.operstate}`);
    if (l.mac) out.push(`     HW Addr: ${l.mac}${l.mtu ? `   MTU: ${l.mtu}` : ""}`);
    l.addresses.forEach((a, i) =>
      out.push(
        `${i === 0 ? "     Address:" : "             "} ${a.address}/${a.prefixlen} (${a.scope}${a.flags.length ? `, ${a.flags.join(" ")}` : ""}; preferred ${a.preferred}, valid ${a.valid})`,
      ),
    );
    l.defaultRoutes.forEach((r, i) => out.push(`${i === 0 ? "     Gateway:" : "             "} ${r.via} (${r.protocol}, expires ${r.expires})`));
    out.push("");
  }
  out.push(`         DNS: ${v.dns.servers.length ? v.dns.servers.join(" ") : "(none)"}`);
  out.push(`  Search Dom: ${v.dns.search.length ? v.dns.search.join(" ") : "(none)"}`);
  return out.join("\n") + "\n";
}

/** nameserver/search lines of a resolv.conf text. */
export function parseResolvConf(text: string): StatusView["dns"] {
  const servers: string[] = [];
  const search: string[] = [];
  for (const line of text.split("\n")) {
    const [k, ...rest] = line.trim().split(/\s+/);
    if (k === "nameserver" && rest[0]) servers.push(rest[0]);
    if (k === "search") search.push(...rest);
  }
  return { servers, search };
}
