/**
 * The agent's kernel cmdline parameters: one table, the single source for parsing
 * (zod), defaults, the README's parameter list (`brief`) and docs/parameters.md
 * (`doc`; test/docs/readme.test.ts keeps them in step). Each schema takes the raw value (`null` for a bare flag, `undefined`
 * when absent) and says in its message what was expected.
 *
 * Who reads a row (`consumer`, absent = the agent): the agent parses its rows strictly
 * (src/config/config.ts: a bad value stops it with exit 2); PID 1 parses its rows
 * leniently (src/init/init-options.ts: it must still reboot on a bad cmdline, so a bad
 * value falls back to the default and is reported); `kernel` rows are the kernel's own,
 * listed for the operator and validated by nobody (the agent takes console= as it is:
 * Config.console). DEBUG is read by both, each for its
 * own effect: PID 1's shell-on-fatal policy, the agent's default log level;
 * METAL_LOG_FORMAT by both for their own log lines.
 */
import { z } from "zod";
import ipaddr from "ipaddr.js";
import { normaliseMac } from "../platform/ids/mac.ts";
import { UUID_EXPECTED, UUID_RE } from "../platform/ids/uuid.ts";
import { parseDuration } from "./duration.ts";
import { parseNtpServerList, type NtpServer } from "./ntp-servers.ts";
import { planRebootSetting, type PlannedRebootSetting } from "./planned-reboot.ts";
import { isStageName, STAGES, type StageName } from "./stages.ts";
import { DEFAULT_WATCHDOG_TIMEOUT_S, type WatchdogSetting } from "./watchdog-setting.ts";

const TRUE_WORDS = new Set(["1", "true", "yes", "on", "y"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off", "n"]);

type Raw = string | null | undefined;

const boolFlag = (dflt: boolean) =>
  z.custom<Raw>().transform((v, ctx): boolean => {
    if (v === undefined) return dflt;
    if (v === null) return true;
    const w = v.toLowerCase();
    if (TRUE_WORDS.has(w)) return true;
    if (FALSE_WORDS.has(w)) return false;
    ctx.addIssue({ code: "custom", message: "expected a boolean: 1/0, true/false, yes/no, on/off, or the bare flag" });
    return z.NEVER;
  });

const enumOf = <T extends string>(values: readonly [T, ...T[]], dflt: T) =>
  z.custom<Raw>().transform((v, ctx): T => {
    if (v === undefined) return dflt;
    if (v !== null && (values as readonly string[]).includes(v)) return v as T;
    ctx.addIssue({ code: "custom", message: `expected one of ${values.join(", ")}` });
    return z.NEVER;
  });

const duration = (dflt: number, min: number, max: number) =>
  z.custom<Raw>().transform((v, ctx): number => {
    if (v === undefined) return dflt;
    const ms = v === null ? undefined : parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: "expected a duration like 90s or 2m" });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      ctx.addIssue({ code: "custom", message: `expected a duration between ${min / 1000}s and ${max / 1000}s` });
      return z.NEVER;
    }
    return ms;
  });

const optionalText = (what: string, pattern?: RegExp) =>
  z.custom<Raw>().transform((v, ctx): string | undefined => {
    if (v === undefined) return undefined;
    if (v === null || v === "" || (pattern && !pattern.test(v))) {
      ctx.addIssue({ code: "custom", message: `expected ${what}` });
      return z.NEVER;
    }
    return v;
  });

/** One of the flow's stages (src/config/stages.ts), or absent. */
const optionalStage = () =>
  z.custom<Raw>().transform((v, ctx): StageName | undefined => {
    if (v === undefined) return undefined;
    if (v !== null && isStageName(v)) return v;
    ctx.addIssue({ code: "custom", message: `expected the name of a stage: one of ${STAGES.join(", ")}` });
    return z.NEVER;
  });

/** An http(s) URL whose host is an IPv6 literal or a DNS name (no IPv4 literal: the boot VRF has none). */
const serverUrl = (what: string, opts: { allowIPv4: boolean }) =>
  z.custom<Raw>().transform((v, ctx): URL | undefined => {
    if (v === undefined) return undefined;
    const expected = `expected ${what}: an https:// URL whose host is an IPv6 literal in brackets or a hostname`;
    if (v === null || !URL.canParse(v)) {
      ctx.addIssue({ code: "custom", message: expected });
      return z.NEVER;
    }
    const url = new URL(v);
    const host = url.hostname;
    const okScheme = url.protocol === "https:" || url.protocol === "http:";
    const isV6 = host.startsWith("[") && host.endsWith("]") && ipaddr.IPv6.isValid(host.slice(1, -1));
    const isV4 = ipaddr.IPv4.isValidFourPartDecimal(host);
    const isName = !isV4 && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(host);
    if (!okScheme || !(isV6 || isName || (opts.allowIPv4 && isV4)) || url.username || url.password) {
      ctx.addIssue({ code: "custom", message: expected });
      return z.NEVER;
    }
    const unusable = unusableAddress(isV6 ? host.slice(1, -1) : isV4 ? host : undefined) ?? (url.port === "0" ? "port 0" : undefined);
    if (unusable) {
      ctx.addIssue({ code: "custom", message: `${expected}; ${unusable} can never be connected to` });
      return z.NEVER;
    }
    return url;
  });

/**
 * Literal addresses a connection can never go to (ipaddr.js range names): the
 * unspecified address, multicast, and IPv4-mapped IPv6 (an IPv4 literal in disguise;
 * the boot VRF has no IPv4). Loopback stays allowed (labs and tests).
 */
function unusableAddress(literal: string | undefined): string | undefined {
  if (literal === undefined) return undefined;
  const range = ipaddr.parse(literal).range();
  if (range === "unspecified") return `the unspecified address ${literal}`;
  if (range === "multicast") return `the multicast address ${literal}`;
  if (range === "ipv4Mapped") return `the IPv4-mapped address ${literal}`;
  if (range === "broadcast") return `the broadcast address ${literal}`;
  return undefined;
}

export type NicSelector = { readonly kind: "name"; readonly name: string } | { readonly kind: "mac"; readonly mac: string };

const IFNAME_RE = /^[A-Za-z0-9_.@-]{1,15}$/;

export function parseNicList(text: string): NicSelector[] | undefined {
  const out: NicSelector[] = [];
  for (const item of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const mac = normaliseMac(item);
    if (mac !== undefined) out.push({ kind: "mac", mac });
    else if (IFNAME_RE.test(item)) out.push({ kind: "name", name: item });
    else return undefined;
  }
  return out.length > 0 ? out : undefined;
}

const nicList = z.custom<Raw>().transform((v, ctx): NicSelector[] => {
  if (v === undefined) return [];
  const list = v === null ? undefined : parseNicList(v);
  if (!list) {
    ctx.addIssue({ code: "custom", message: "expected a comma-separated list of interface names (eth0) or MACs (52:54:00:12:34:56)" });
    return z.NEVER;
  }
  return list;
});

export type Handoff = { readonly kind: "builtin" } | { readonly kind: "exec"; readonly path: string };

const handoff = z.custom<Raw>().transform((v, ctx): Handoff => {
  if (v === undefined || v === "builtin") return { kind: "builtin" };
  if (v !== null && /^exec:\/[^\s]+$/.test(v)) return { kind: "exec", path: v.slice("exec:".length) };
  ctx.addIssue({ code: "custom", message: "expected builtin or exec:/absolute/path" });
  return z.NEVER;
});

const ntpServers = z.custom<Raw>().transform((v, ctx): NtpServer[] => {
  if (v === undefined) return [];
  const list = v === null ? undefined : parseNtpServerList(v);
  if (!list) {
    ctx.addIssue({
      code: "custom",
      message: "expected a comma-separated list of NTP servers: IPv6 addresses (2001:db8::123 or [2001:db8::123]:123), IPv4 addresses or host names",
    });
    return z.NEVER;
  }
  return list;
});

/** METAL_WATCHDOG: off (0/false/no/off), on (1/true/yes/on, bare flag: 60 s), or a timeout duration (5s..1h). */
const watchdog = z.custom<Raw>().transform((v, ctx): WatchdogSetting => {
  const dflt = DEFAULT_WATCHDOG_TIMEOUT_S;
  if (v === undefined || v === null) return { enabled: true, timeoutS: dflt };
  const w = v.toLowerCase();
  if (FALSE_WORDS.has(w)) return { enabled: false, timeoutS: dflt };
  if (TRUE_WORDS.has(w)) return { enabled: true, timeoutS: dflt };
  const ms = parseDuration(v);
  if (ms === undefined || ms < 5_000 || ms > 3_600_000 || ms % 1000 !== 0) {
    ctx.addIssue({ code: "custom", message: "expected 0/off, 1/on, or a timeout in whole seconds between 5s and 1h, like 60s or 2m" });
    return z.NEVER;
  }
  return { enabled: true, timeoutS: ms / 1000 };
});

const plannedReboot = z.custom<Raw>().transform((v, ctx): PlannedRebootSetting | undefined => {
  const r = planRebootSetting(v);
  if (r === "invalid") {
    ctx.addIssue({ code: "custom", message: "expected off, or a bound plus an optional random jitter like 24h+24h or 12h (each 1m..7d)" });
    return z.NEVER;
  }
  return r;
});

/** The table. `default` and `brief` (at most 60 characters) feed README.md, `doc` docs/parameters.md (tools/readme-tables.ts). */
export const PARAMS = {
  METAL_BOOT_URL: {
    schema: serverUrl("the metal-boot base URL", { allowIPv4: false }),
    default: "(none; required in mode l3)",
    brief: "metal-boot base URL (`<url>/config/<uuid>`)",
    doc: "metal-boot base URL; the agent fetches `<url>/config/<uuid>` from it",
  },
  METAL_MODE: {
    schema: enumOf(["l3", "pxe"], "l3"),
    default: "l3",
    brief: "`l3` (IPv6 SLAAC, MEP-20) or the legacy `pxe`",
    doc: "`l3`: IPv6 SLAAC bring-up (MEP-20); `pxe`: legacy, the kernel's `ip=dhcp` already configured IPv4",
  },
  PIXIE_API_URL: {
    schema: serverUrl("the legacy pixiecore API URL", { allowIPv4: true }),
    default: "(none; required in mode pxe)",
    brief: "legacy (mode pxe) pixiecore API URL",
    doc: "legacy (mode pxe) pixiecore API URL, e.g. `http://[fd00::1]:8080/certs`; its origin serves `/config/<uuid>`",
  },
  METAL_PARTITION: {
    // 2..63 characters: the apiserver wants 2..128 (predefined_rules.proto is_partition).
    schema: optionalText("a partition id of 2..63 characters: lowercase letters, digits, dashes", /^[a-z0-9][a-z0-9-]{1,62}$/),
    default: "(none)",
    brief: "the partition metal-boot served this machine for",
    doc: "the partition metal-boot served this machine for (set by metal-boot's boot.ipxe; reported to the apiserver)",
  },
  METAL_NICS: {
    schema: nicList,
    default: "(all physical NICs)",
    brief: "allow-list of interface names or MACs",
    doc: "comma-separated allow-list of interface names or MACs; nothing else is touched",
  },
  METAL_NET_POLICY: {
    schema: enumOf(["any", "all"], "any"),
    default: "any",
    brief: "ready when `any` or only when `all` selected NICs are",
    doc: "ready when `any` selected interface is ready, or only when `all` are",
  },
  METAL_NET_TIMEOUT: {
    schema: duration(60_000, 1_000, 3_600_000),
    default: "60s",
    brief: "bound for network readiness",
    doc: "bound for network readiness (address, default route, DNS), e.g. `90s`, `2m`",
  },
  METAL_NET_FAST: {
    schema: boolFlag(false),
    default: "0",
    brief: "fast-ND profile: optimistic DAD, no RS delay",
    doc: "fast-ND profile: no RS delay, optimistic DAD, short retransmit timer; DAD is kept",
  },
  METAL_NET_RS_DELAY: {
    schema: boolFlag(false),
    default: "0",
    brief: "keep the kernel's random delay before DAD and RS",
    doc: "keep the kernel's random 0-1 s delay before DAD and the first router solicitation (RFC 4861/4862; for a segment shared by many hosts). Default: delay 0 and our own RS at link-up (one machine per /64)",
  },
  METAL_RETRY_WINDOW: {
    schema: duration(60_000, 1_000, 3_600_000),
    default: "60s",
    brief: "how long requests to the servers are retried",
    doc: "retry window of requests to metal-boot, the apiserver and the image cache probe: connect failures and 502/503/504 are retried (full-jitter backoff, at most 5 s apart, [bounds](docs/bounds.md#retries)) until this long after the first attempt, e.g. `30s`, `5m`",
  },
  METAL_CA: {
    schema: optionalText("an absolute path to a PEM bundle", /^\/\S*$/),
    default: "/etc/ssl/certs/ca-certificates.crt",
    brief: "CA bundle that verifies metal-boot",
    doc: "CA bundle that verifies metal-boot (and the apiserver, with the CA metal-boot hands out)",
  },
  METAL_ALLOW_HTTP: {
    schema: boolFlag(false),
    default: "0",
    brief: "allow plain `http://` server URLs (lab only)",
    doc: "allow plain `http://` server URLs (lab only); never used silently",
  },
  METAL_UUID: {
    // The apiserver takes only a UUID (metal-stack-api infra/v2/boot.proto uuid: string.uuid).
    schema: optionalText(UUID_EXPECTED, UUID_RE),
    default: "(from /sys/class/dmi/id/product_uuid)",
    brief: "override the machine UUID",
    doc: "override the machine UUID (tests, machines with broken DMI)",
  },
  METAL_HANDOFF: {
    schema: handoff,
    default: "builtin",
    brief: "the `builtin` provisioning flow, or `exec:/path`",
    doc: "after bring-up: `builtin` provisioning flow, or `exec:/path` of another next stage",
  },
  METAL_WAIT_TIMEOUT: {
    schema: duration(86_400_000, 1_000, 7 * 86_400_000),
    default: "24h",
    brief: "bound for waiting for an allocation",
    doc: "builtin flow: bound for waiting for an allocation (BootService/Wait, reconnects included), e.g. `30m`, `24h`",
  },
  METAL_IMAGE_CACHE_URL: {
    schema: serverUrl("the image cache base URL", { allowIPv4: false }),
    default: "(none; or metal-boot's `image_cache_url`)",
    brief: "image cache base URL (probed, then used)",
    doc: "image cache base URL: probed (HEAD, any answer below 500, TLS verified) and used for image downloads (the image URL's path under it); unset: probe skipped",
  },
  METAL_LLDP_TIMEOUT: {
    schema: duration(30_000, 0, 3_600_000),
    default: "30s",
    brief: "how long Register waits for LLDP from two switches",
    doc: "builtin flow: how long Register waits for LLDP neighbours on two distinct switches before it registers with what it has",
  },
  METAL_NTP_SERVERS: {
    schema: ntpServers,
    default: "(none: the clock is not checked)",
    brief: "NTP servers the clock is checked against, before TLS",
    doc: "NTP servers asked (SNTP, UDP 123) as soon as the network is ready, before any TLS: comma-separated IPv6/IPv4 addresses or names, `[addr]:port` allowed; the clock is stepped when off by 1 s or more ([operations](docs/operations.md))",
  },
  METAL_WATCHDOG: {
    schema: watchdog,
    default: "60s",
    brief: "hardware watchdog timeout, or `0`",
    doc: "hardware watchdog (`/dev/watchdog`, when present): its timeout, e.g. `120s`, or `0` to leave it alone; a hung agent resets the machine",
  },
  METAL_PLANNED_REBOOT: {
    schema: plannedReboot,
    default: "24h+24h",
    brief: "reboot while waiting, after bound + jitter; or `off`",
    doc: "while waiting for an allocation, reboot after this bound plus a random jitter (`24h+24h`: between 24 and 48 h) to pick up a new agent; `off` to wait for the allocation only",
  },
  METAL_DEBUG_HANG: {
    schema: optionalStage(),
    default: "(none)",
    brief: "lab only: hang at this stage (the watchdog resets)",
    doc: `lab only: the agent blocks (event loop and all) at the start of this stage (${STAGES.join(", ")}), so the hardware watchdog must reset the machine; any other value is refused`,
  },
  METAL_IMAGE_STALL_TIMEOUT: {
    schema: duration(60_000, 5_000, 1_800_000),
    default: "60s",
    brief: "an image download without progress this long resumes",
    doc: "builtin flow: the image download counts as stalled after this long without a byte, or with under 64 KiB in that long; it is then resumed (bounded retries)",
  },
  METAL_INSTALLER_TIMEOUT: {
    schema: duration(1_200_000, 10_000, 14_400_000),
    default: "20m",
    brief: "bound for the image's installer",
    doc: "builtin flow: bound for the image's installer (`/os-installer` or `/install.sh` in a chroot, as PID 1 of its own PID namespace); killed with every process it left at the bound, and what it left is killed when it exits",
  },
  METAL_WIPE: {
    schema: enumOf(["fast", "overwrite"], "fast"),
    default: "fast",
    brief: "disk wipe before Waiting: `fast` or `overwrite`",
    doc: "disk wipe before Waiting: `fast` erases with what each disk supports and finishes in minutes (NVMe crypto/format and sanitize, ATA and SCSI crypto/block sanitize, an ATA security erase the drive estimates at 10 min or less, discard) and clears only the metadata of disks that support none; `overwrite` also runs the drive's own erases that write every block (ATA security erase, sanitize overwrite, FORMAT UNIT) and else writes every block itself (hours on large hard disks)",
  },
  METAL_LOG_LEVEL: {
    schema: enumOf(["trace", "debug", "info", "warn", "error"], "info"),
    default: "info (debug with DEBUG=1)",
    brief: "log level",
    doc: "log level",
  },
  METAL_LOG_FORMAT: {
    schema: enumOf(["auto", "json", "text"], "auto"),
    default: "auto",
    brief: "log lines: `json`, `text` or `auto`",
    doc: "log lines: `json` (one JSON object a line), `text` (one compact line), `auto` (JSON unless stderr is a terminal); read by PID 1 and the agent (commands run by hand take it from the environment)",
  },
  DEBUG: {
    schema: boolFlag(false),
    default: "0",
    brief: "verbose logs; a shell instead of a reboot on error",
    doc: "debug: verbose logs, and on a fatal error drop to a shell instead of rebooting",
  },
  METAL_DONE: {
    consumer: "init",
    schema: enumOf(["poweroff", "reboot", "halt", "shell"], "reboot"),
    default: "reboot",
    brief: "as PID 1 on success: `poweroff`, `reboot`, `halt` or `shell`",
    doc: "as PID 1, what to do when the flow ends without an error: `poweroff` (the QEMU lab), `reboot`, `halt`, or `shell`",
  },
  METAL_REBOOT_DELAY: {
    consumer: "init",
    schema: duration(30_000, 0, 3_600_000),
    default: "30s",
    brief: "as PID 1 after an error: reboot after this long",
    doc: "as PID 1, after a fatal error (DEBUG off): wait this long, then reboot",
  },
  console: {
    consumer: "kernel",
    schema: optionalText("a console device like ttyS0,115200n8", /^[A-Za-z0-9_,./-]+$/),
    default: "(kernel default)",
    brief: "where PID 1 logs; the installed OS's console",
    doc: "the kernel's own parameter; the last one given is where the agent logs as PID 1, and the installed OS's console (machine-details.yaml; absent: ttyS0 for Dell Inc., Giga Computing, QEMU, FUJITSU, else ttyS1, as pixie picks it)",
  },
} as const;

export type ParamName = keyof typeof PARAMS;
export const PARAM_NAMES = Object.keys(PARAMS) as ParamName[];

type Consumer = "agent" | "init" | "kernel";
const consumerOf = (n: ParamName): Consumer => (PARAMS[n] as { consumer?: Consumer }).consumer ?? "agent";
/** The rows the agent parses (strictly): every row without a consumer (DEBUG and METAL_LOG_FORMAT among them). */
export type AgentParamName = { [N in ParamName]: (typeof PARAMS)[N] extends { consumer: "init" | "kernel" } ? never : N }[ParamName];
export const AGENT_PARAM_NAMES = PARAM_NAMES.filter((n): n is AgentParamName => consumerOf(n) === "agent");
/** The rows PID 1 parses (leniently): its own, and DEBUG and METAL_LOG_FORMAT, which the agent reads too. */
export const INIT_PARAM_NAMES = [...PARAM_NAMES.filter((n) => consumerOf(n) === "init"), "DEBUG", "METAL_LOG_FORMAT"] as const;
