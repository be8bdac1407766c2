/**
 * Kernel cmdline -> the agent's validated configuration. Pure: takes the cmdline text,
 * returns a Config or throws one AgentError("usage") whose message names the
 * parameter, the value and what was expected. Only the agent's rows of the table are
 * parsed here; PID 1's rows are read by src/init/init-options.ts (params.ts).
 */
import { z } from "zod";
import { AgentError } from "../platform/errors.ts";
import { parseCmdline } from "./cmdline.ts";
import { AGENT_PARAM_NAMES, PARAMS, type AgentParamName, type Handoff, type NicSelector, type ParamName } from "./params.ts";
import { formatNtpServer, type NtpServer } from "./ntp-servers.ts";
import type { PlannedRebootSetting } from "./planned-reboot.ts";
import type { StageName } from "./stages.ts";
import type { WatchdogSetting } from "./watchdog-setting.ts";

export type { Handoff, NicSelector } from "./params.ts";

export interface Config {
  readonly mode: "l3" | "pxe";
  /** Where `/config/<uuid>` is fetched from: METAL_BOOT_URL (l3) or PIXIE_API_URL's origin (pxe). */
  readonly metalBootUrl: URL;
  /** METAL_PARTITION: the partition metal-boot served this boot for (from boot.ipxe's cmdline). */
  readonly partition: string | undefined;
  readonly nics: readonly NicSelector[];
  readonly policy: "any" | "all";
  readonly netTimeoutMs: number;
  readonly fast: boolean;
  /** METAL_NET_RS_DELAY: keep the RFC's random RS/DAD delay (shared segments). */
  readonly rsDelay: boolean;
  /** METAL_RETRY_WINDOW: the HTTP client's retry window (DEFAULT_RETRY.totalMs unless set). */
  readonly retryWindowMs: number;
  readonly caBundle: string;
  readonly allowHttp: boolean;
  readonly uuid: string | undefined;
  readonly handoff: Handoff;
  /** METAL_WAIT_TIMEOUT: bound for BootService/Wait in the built-in flow. */
  readonly waitTimeoutMs: number;
  /** METAL_IMAGE_CACHE_URL: the image cache (metal-boot's image_cache_url is used when unset). */
  readonly imageCacheUrl: URL | undefined;
  /** METAL_LLDP_TIMEOUT: how long Register waits for neighbours on two switches. */
  readonly lldpTimeoutMs: number;
  /** METAL_NTP_SERVERS: asked before the first TLS connection (empty: the clock is not checked). */
  readonly ntpServers: readonly NtpServer[];
  /** METAL_WATCHDOG. */
  readonly watchdog: WatchdogSetting;
  /** METAL_PLANNED_REBOOT (undefined: off). */
  readonly plannedReboot: PlannedRebootSetting | undefined;
  /** METAL_DEBUG_HANG: block at the start of this stage (lab: proves the watchdog). */
  readonly debugHang: StageName | undefined;
  /** METAL_IMAGE_STALL_TIMEOUT: no byte of the image for this long = a stall. */
  readonly imageStallMs: number;
  /** METAL_INSTALLER_TIMEOUT: bound for the image's installer. */
  readonly installerTimeoutMs: number;
  /** METAL_WIPE: what the disk wipe does with disks that support no erase (src/machine/disk/wipe-plan.ts). */
  readonly wipe: "fast" | "overwrite";
  /** METAL_LOG_LEVEL, else debug with DEBUG=1. (DEBUG's other effect, the debug shell, and METAL_DONE / METAL_REBOOT_DELAY are PID 1's: src/init/init-options.ts.) */
  readonly logLevel: "trace" | "debug" | "info" | "warn" | "error";
  /** METAL_LOG_FORMAT ("auto": JSON unless stderr is a terminal). */
  readonly logFormat: "auto" | "json" | "text";
  /** Settings that work but are likely a mistake, one line each (logged at start as agent.config.warning). */
  readonly warnings: readonly string[];
  /**
   * console= as the kernel read it (the last one given, with its options, e.g.
   * "ttyS0,115200n8"; undefined when absent: then the manufacturer decides,
   * console.ts): the installed OS's console in machine-details.yaml (metal-hammer
   * cmd/install.go:212-215, pkg/kernel ParseCmdline). The kernel's row: taken as it is,
   * never refused.
   */
  readonly console: string | undefined;
  /** Parameters the agent does not use, kept aside (a real cmdline has dozens). */
  readonly ignored: Readonly<Record<string, string | null>>;
  /** Words after `--`. */
  readonly initArgs: readonly string[];
}

/** Quotes a value for an error line; control and non-ASCII characters are escaped. */
export function showValue(v: string | null): string {
  if (v === null) return "(bare flag)";
  return JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function paramError(name: string, value: string | null | undefined, expected: string): AgentError {
  const shown = value === undefined ? "missing" : `${name}=${showValue(value)}`;
  const line = value === undefined ? `${name}: missing; ${expected}` : `${shown}: ${expected}`;
  return new AgentError("usage", line, { parameter: name });
}

function parseParam<N extends ParamName>(name: N, raw: string | null | undefined): z.output<(typeof PARAMS)[N]["schema"]> {
  const r = PARAMS[name].schema.safeParse(raw);
  if (!r.success) throw paramError(name, raw, r.error.issues[0]?.message ?? "invalid value");
  return r.data as z.output<(typeof PARAMS)[N]["schema"]>;
}

export function configFromCmdline(text: string): Config {
  const { params, initArgs } = parseCmdline(text);
  const get = (n: ParamName) => (params.has(n) ? (params.get(n) ?? null) : undefined);
  const v = Object.fromEntries(AGENT_PARAM_NAMES.map((n) => [n, parseParam(n, get(n))])) as {
    [N in AgentParamName]: z.output<(typeof PARAMS)[N]["schema"]>;
  };

  const mode = v.METAL_MODE;
  let metalBootUrl: URL;
  if (mode === "l3") {
    if (!v.METAL_BOOT_URL) throw paramError("METAL_BOOT_URL", undefined, "expected the metal-boot base URL (https://...) in METAL_MODE=l3");
    metalBootUrl = v.METAL_BOOT_URL;
  } else {
    if (!v.PIXIE_API_URL) throw paramError("PIXIE_API_URL", undefined, "expected the pixiecore API URL in METAL_MODE=pxe");
    metalBootUrl = new URL("/", v.PIXIE_API_URL);
  }
  // Legacy pixiecore speaks plain http by design; everywhere else http needs the explicit opt-in.
  if (metalBootUrl.protocol === "http:" && mode === "l3" && !v.METAL_ALLOW_HTTP) {
    throw paramError("METAL_BOOT_URL", get("METAL_BOOT_URL"), "expected an https:// URL (plain http only with METAL_ALLOW_HTTP=1)");
  }

  const ignored: Record<string, string | null> = {};
  for (const [k, val] of params) if (!(k in PARAMS)) ignored[k] = val;

  return {
    warnings: configWarnings(mode, params),
    mode,
    metalBootUrl,
    partition: v.METAL_PARTITION,
    nics: v.METAL_NICS,
    policy: v.METAL_NET_POLICY,
    netTimeoutMs: v.METAL_NET_TIMEOUT,
    fast: v.METAL_NET_FAST,
    rsDelay: v.METAL_NET_RS_DELAY,
    retryWindowMs: v.METAL_RETRY_WINDOW,
    caBundle: v.METAL_CA ?? "/etc/ssl/certs/ca-certificates.crt",
    allowHttp: v.METAL_ALLOW_HTTP || mode === "pxe",
    uuid: v.METAL_UUID?.toLowerCase(),
    handoff: v.METAL_HANDOFF,
    waitTimeoutMs: v.METAL_WAIT_TIMEOUT,
    imageCacheUrl: v.METAL_IMAGE_CACHE_URL,
    lldpTimeoutMs: v.METAL_LLDP_TIMEOUT,
    ntpServers: v.METAL_NTP_SERVERS,
    watchdog: v.METAL_WATCHDOG,
    plannedReboot: v.METAL_PLANNED_REBOOT,
    debugHang: v.METAL_DEBUG_HANG,
    imageStallMs: v.METAL_IMAGE_STALL_TIMEOUT,
    installerTimeoutMs: v.METAL_INSTALLER_TIMEOUT,
    wipe: v.METAL_WIPE,
    logLevel: params.has("METAL_LOG_LEVEL") ? v.METAL_LOG_LEVEL : v.DEBUG ? "debug" : "info",
    logFormat: v.METAL_LOG_FORMAT,
    console: params.get("console") || undefined,
    ignored,
    initArgs,
  };
}

/** A JSON-friendly view of the configuration (for `config --json` and the start-up log line). */
export function configToJson(c: Config): Record<string, unknown> {
  return {
    mode: c.mode,
    metalBootUrl: c.metalBootUrl.href,
    partition: c.partition ?? null,
    nics: c.nics.map((n) => (n.kind === "mac" ? n.mac : n.name)),
    policy: c.policy,
    netTimeoutMs: c.netTimeoutMs,
    fast: c.fast,
    rsDelay: c.rsDelay,
    retryWindowMs: c.retryWindowMs,
    caBundle: c.caBundle,
    allowHttp: c.allowHttp,
    uuid: c.uuid ?? null,
    handoff: c.handoff.kind === "exec" ? `exec:${c.handoff.path}` : "builtin",
    waitTimeoutMs: c.waitTimeoutMs,
    imageCacheUrl: c.imageCacheUrl?.href ?? null,
    lldpTimeoutMs: c.lldpTimeoutMs,
    ntpServers: c.ntpServers.map(formatNtpServer),
    watchdog: c.watchdog.enabled ? `${c.watchdog.timeoutS}s` : "off",
    plannedReboot: c.plannedReboot ? { boundMs: c.plannedReboot.boundMs, jitterMs: c.plannedReboot.jitterMs } : "off",
    debugHang: c.debugHang ?? null,
    imageStallMs: c.imageStallMs,
    installerTimeoutMs: c.installerTimeoutMs,
    wipe: c.wipe,
    logLevel: c.logLevel,
    logFormat: c.logFormat,
    console: c.console ?? null,
    ignored: c.ignored,
    initArgs: c.initArgs,
  };
}

/**
 * Kernel parameters that fight the agent in l3 mode: `ip=` (other than off/none) makes
 * the kernel's IPv4 autoconfig bring every NIC up and wait for DHCP before /init runs,
 * before the agent has written its IPv6 sysctls (kernel-config/README.md).
 */
export function configWarnings(mode: "l3" | "pxe", params: ReadonlyMap<string, string | null>): string[] {
  const warnings: string[] = [];
  const ip = params.get("ip");
  if (mode === "l3" && params.has("ip") && ip !== "off" && ip !== "none") {
    warnings.push(
      `ip=${showValue(ip ?? null)}: the kernel's IPv4 autoconfiguration runs before the agent in METAL_MODE=l3 (brings NICs up before the IPv6 sysctls, waits for DHCP); expected no ip= or ip=off`,
    );
  }
  return warnings;
}
