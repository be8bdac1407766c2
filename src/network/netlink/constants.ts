/**
 * rtnetlink constants under their kernel names (include/uapi/linux/netlink.h,
 * rtnetlink.h, if_link.h, if_addr.h, if.h, fib_rules.h, neighbour.h, ndisc.h). Only what the agent
 * reads or writes; unknown values pass through as numbers.
 */
export const AF_UNSPEC = 0;
export const AF_INET6 = 10;
export const AF_NETLINK = 16;
export { AF_PACKET } from "../../platform/sys/libc.ts";
export const NETLINK_ROUTE = 0;
export const SOL_NETLINK = 270;
export const NETLINK_ADD_MEMBERSHIP = 1;
export const NETLINK_EXT_ACK = 11;

// netlink.h: nlmsghdr
export const NLMSG_HDRLEN = 16;
export const NLA_HDRLEN = 4;
export const NLMSG_NOOP = 1;
export const NLMSG_ERROR = 2;
export const NLMSG_DONE = 3;
export const NLMSG_OVERRUN = 4;
export const NLM_F_REQUEST = 0x01;
export const NLM_F_MULTI = 0x02;
export const NLM_F_ACK = 0x04;
export const NLM_F_ROOT = 0x100;
export const NLM_F_MATCH = 0x200;
export const NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
// netlink.h: modifiers of NEW requests
export const NLM_F_REPLACE = 0x100;
export const NLM_F_EXCL = 0x200;
export const NLM_F_CREATE = 0x400;
export const NLM_F_CAPPED = 0x100;
export const NLM_F_ACK_TLVS = 0x200;
export const NLA_F_NESTED = 1 << 15;
export const NLA_F_NET_BYTEORDER = 1 << 14;
export const NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;

// rtnetlink.h: message types
export const RTM_NEWLINK = 16;
export const RTM_DELLINK = 17;
export const RTM_GETLINK = 18;
export const RTM_SETLINK = 19;
export const RTM_NEWADDR = 20;
export const RTM_DELADDR = 21;
export const RTM_GETADDR = 22;
export const RTM_NEWROUTE = 24;
export const RTM_DELROUTE = 25;
export const RTM_GETROUTE = 26;
export const RTM_NEWRULE = 32;
export const RTM_DELRULE = 33;
export const RTM_NEWPREFIX = 52;
export const RTM_NEWNDUSEROPT = 68;

// rtnetlink.h: multicast groups (numbers for NETLINK_ADD_MEMBERSHIP)
export const RTNLGRP_LINK = 1;
export const RTNLGRP_IPV6_IFADDR = 9;
export const RTNLGRP_IPV6_ROUTE = 11;
export const RTNLGRP_IPV6_IFINFO = 12;
export const RTNLGRP_IPV6_PREFIX = 18;
export const RTNLGRP_ND_USEROPT = 20;

// if.h: net_device_flags
export const IFF_UP = 0x1;
export const IFF_BROADCAST = 0x2;
export const IFF_LOOPBACK = 0x8;
export const IFF_POINTOPOINT = 0x10;
export const IFF_RUNNING = 0x40;
export const IFF_NOARP = 0x80;
export const IFF_MULTICAST = 0x1000;
export const IFF_LOWER_UP = 0x10000;
export const IFF_DORMANT = 0x20000;

// if_link.h: IFLA_*
export const IFLA_ADDRESS = 1;
export const IFLA_BROADCAST = 2;
export const IFLA_IFNAME = 3;
export const IFLA_MTU = 4;
export const IFLA_LINK = 5;
export const IFLA_MASTER = 10;
export const IFLA_PROTINFO = 12;
export const IFLA_OPERSTATE = 16;
export const IFLA_LINKMODE = 17;
export const IFLA_LINKINFO = 18;
export const IFLA_CARRIER = 33;
export const IFLA_INFO_KIND = 1;

// if.h: IF_OPER_*
export const IF_OPER_UNKNOWN = 0;
export const IF_OPER_NOTPRESENT = 1;
export const IF_OPER_DOWN = 2;
export const IF_OPER_LOWERLAYERDOWN = 3;
export const IF_OPER_TESTING = 4;
export const IF_OPER_DORMANT = 5;
export const IF_OPER_UP = 6;
export const OPERSTATE_NAMES = ["unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up"] as const;

// if_addr.h: IFA_*
export const IFA_ADDRESS = 1;
export const IFA_LOCAL = 2;
export const IFA_LABEL = 3;
export const IFA_BROADCAST = 4;
export const IFA_ANYCAST = 5;
export const IFA_CACHEINFO = 6;
export const IFA_MULTICAST = 7;
export const IFA_FLAGS = 8;
export const IFA_RT_PRIORITY = 9;
export const IFA_PROTO = 11;

export const IFA_F_SECONDARY = 0x01;
export const IFA_F_TEMPORARY = IFA_F_SECONDARY;
export const IFA_F_NODAD = 0x02;
export const IFA_F_OPTIMISTIC = 0x04;
export const IFA_F_DADFAILED = 0x08;
export const IFA_F_HOMEADDRESS = 0x10;
export const IFA_F_DEPRECATED = 0x20;
export const IFA_F_TENTATIVE = 0x40;
export const IFA_F_PERMANENT = 0x80;
export const IFA_F_MANAGETEMPADDR = 0x100;
export const IFA_F_NOPREFIXROUTE = 0x200;
export const IFA_F_MCAUTOJOIN = 0x400;
export const IFA_F_STABLE_PRIVACY = 0x800;
export const IFA_FLAG_NAMES: readonly (readonly [number, string])[] = [
  [IFA_F_TEMPORARY, "temporary"],
  [IFA_F_NODAD, "nodad"],
  [IFA_F_OPTIMISTIC, "optimistic"],
  [IFA_F_DADFAILED, "dadfailed"],
  [IFA_F_HOMEADDRESS, "homeaddress"],
  [IFA_F_DEPRECATED, "deprecated"],
  [IFA_F_TENTATIVE, "tentative"],
  [IFA_F_PERMANENT, "permanent"],
  [IFA_F_MANAGETEMPADDR, "mngtmpaddr"],
  [IFA_F_NOPREFIXROUTE, "noprefixroute"],
  [IFA_F_MCAUTOJOIN, "autojoin"],
  [IFA_F_STABLE_PRIVACY, "stable-privacy"],
];

// rtnetlink.h: rt_scope_t
export const RT_SCOPE_UNIVERSE = 0;
export const RT_SCOPE_SITE = 200;
export const RT_SCOPE_LINK = 253;
export const RT_SCOPE_HOST = 254;

// rtnetlink.h: RTA_*
export const RTA_DST = 1;
export const RTA_SRC = 2;
export const RTA_IIF = 3;
export const RTA_OIF = 4;
export const RTA_GATEWAY = 5;
export const RTA_PRIORITY = 6;
export const RTA_PREFSRC = 7;
export const RTA_METRICS = 8;
export const RTA_MULTIPATH = 9;
export const RTA_TABLE = 15;
export const RTA_CACHEINFO = 12;
export const RTA_PREF = 20;
export const RTA_EXPIRES = 23;

// rtnetlink.h: rtm_protocol, rtm_type, tables
export const RTPROT_UNSPEC = 0;
export const RTPROT_KERNEL = 2;
export const RTPROT_BOOT = 3;
export const RTPROT_STATIC = 4;
export const RTPROT_RA = 9;
export const RTN_UNICAST = 1;
export const RT_TABLE_UNSPEC = 0;
export const RT_TABLE_MAIN = 254;

// fib_rules.h: struct fib_rule_hdr, FRA_*, FR_ACT_*
export const FRA_SRC = 2;
export const FRA_PRIORITY = 6;
export const FRA_SUPPRESS_PREFIXLEN = 14;
export const FRA_TABLE = 15;
export const FR_ACT_TO_TBL = 1;

// rtnetlink.h: prefixmsg
export const PREFIX_ADDRESS = 1;
export const PREFIX_CACHEINFO = 2;
export const IF_PREFIX_ONLINK = 0x01;
export const IF_PREFIX_AUTOCONF = 0x02;

// rtnetlink.h: nduseroptmsg; neighbour/ndisc
export const NDUSEROPT_SRCADDR = 1;
export const ND_OPT_RDNSS = 25;
export const ND_OPT_DNSSL = 31;
export const ICMPV6_ND_ROUTER_ADVERT = 134;
export const ICMPV6_ND_ROUTER_SOLICIT = 133;

// RTM_NEWPREFIX: prefix_flags carries the RA prefix option's flag byte as measured
// on 6.18 (0xc0 for L|A), not the IF_PREFIX_* values of rtnetlink.h.
export const ND_PREFIX_FLAG_ONLINK = 0x80;
export const ND_PREFIX_FLAG_AUTONOMOUS = 0x40;
export const ND_OPT_PREFIX_INFORMATION = 3;
