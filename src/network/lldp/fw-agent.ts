/**
 * Intel's firmware LLDP agent: X710/XXV710 (i40e) and E810 (ice) NICs run an LLDP
 * agent in firmware that consumes LLDP frames before the host sees them, so the agent
 * would never see its switches. The drivers offer a private flag to turn it off; this
 * is what metal-hammer does with `ethtool --set-priv-flags <if> disable-fw-lldp on`
 * (metal-stack/metal-hammer@ec148e3 cmd/network/ethtool.go:53 disableFirmwareLLDP).
 * Flag names and senses, from the drivers' ethtool code:
 * i40e `disable-fw-lldp` (on = firmware agent off); ice `fw-lldp-agent` (off = firmware
 * agent off; called `enable-fw-lldp` in mid-2019 kernels, same sense). Any driver
 * offering one of these names gets the same treatment. The decision is pure; the
 * shell reads and writes the flags over SIOCETHTOOL (src/platform/sys/ethtool.ts).
 */
import type { Logger } from "../../platform/log/logger.ts";
import { logEvent } from "../../platform/log/logger.ts";
import { readPrivFlags, writePrivFlags, type PrivFlags } from "../../platform/sys/ethtool.ts";

/** Flag name -> the value that means "firmware LLDP agent off". */
export const FW_LLDP_FLAGS: Readonly<Record<string, boolean>> = {
  "disable-fw-lldp": true,
  "fw-lldp-agent": false,
  "enable-fw-lldp": false,
};

export type FwLldpDecision =
  | { readonly action: "none" }
  | { readonly action: "already_off"; readonly flag: string }
  | { readonly action: "set"; readonly flag: string; readonly value: number };

export function decideFwLldp(flags: PrivFlags): FwLldpDecision {
  for (const [bit, name] of flags.names.entries()) {
    const off = FW_LLDP_FLAGS[name];
    if (off === undefined) continue;
    const mask = (1 << bit) >>> 0;
    const isOn = (flags.value & mask) !== 0;
    if (isOn === off) return { action: "already_off", flag: name };
    return { action: "set", flag: name, value: (off ? flags.value | mask : flags.value & ~mask) >>> 0 };
  }
  return { action: "none" };
}

export interface FwLldpIo {
  read(ifname: string): PrivFlags;
  write(ifname: string, value: number): void;
}

export const ethtoolIo: FwLldpIo = { read: readPrivFlags, write: writePrivFlags };

export type FwLldpOutcome = "no_flag" | "already_off" | "turned_off" | "failed";

/** Turns the firmware agent off where the driver offers it. Never throws: LLDP still runs on NICs without it. */
export function disableFirmwareLldp(ifname: string, log: Logger, io: FwLldpIo = ethtoolIo): FwLldpOutcome {
  let d: FwLldpDecision;
  try {
    d = decideFwLldp(io.read(ifname));
  } catch (e) {
    logEvent(
      log,
      "lldp.fw_agent",
      { ifname, outcome: "failed", error: (e as Error).message },
      "cannot read the NIC's private flags; if it is an Intel NIC with a firmware LLDP agent, LLDP frames may not arrive",
      "warn",
    );
    return "failed";
  }
  if (d.action === "none") {
    logEvent(log, "lldp.fw_agent", { ifname, outcome: "no_flag" }, "no firmware LLDP agent flag on this NIC: nothing to turn off", "debug");
    return "no_flag";
  }
  if (d.action === "already_off") {
    logEvent(log, "lldp.fw_agent", { ifname, outcome: "already_off", flag: d.flag }, "the NIC's firmware LLDP agent is already off");
    return "already_off";
  }
  try {
    io.write(ifname, d.value);
  } catch (e) {
    logEvent(
      log,
      "lldp.fw_agent",
      { ifname, outcome: "failed", flag: d.flag, error: (e as Error).message },
      "cannot turn the NIC's firmware LLDP agent off: LLDP frames from the switch may not arrive",
      "warn",
    );
    return "failed";
  }
  logEvent(log, "lldp.fw_agent", { ifname, outcome: "turned_off", flag: d.flag }, "turned the NIC's firmware LLDP agent off");
  return "turned_off";
}
