import { describe, expect, test } from "bun:test";
import { configFromCmdline, configToJson } from "../../src/config/config.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

const BASE = "METAL_BOOT_URL=https://[fd00::1]/";

function usage(cmdline: string): string {
  const e = agentErrorOf(() => configFromCmdline(cmdline));
  expect(e.exitCode).toBe(2);
  return e.message;
}

describe("operations parameters", () => {
  test("defaults: no NTP servers, watchdog on with 60 s, planned reboot 24h+24h", () => {
    const c = configFromCmdline(BASE);
    expect(c.ntpServers).toEqual([]);
    expect(c.watchdog).toEqual({ enabled: true, timeoutS: 60 });
    expect(c.plannedReboot).toEqual({ boundMs: 86_400_000, jitterMs: 86_400_000 });
    expect(configToJson(c)).toMatchObject({ ntpServers: [], watchdog: "60s", plannedReboot: { boundMs: 86_400_000, jitterMs: 86_400_000 } });
  });

  test("METAL_NTP_SERVERS takes addresses and names", () => {
    const c = configFromCmdline(`${BASE} METAL_NTP_SERVERS=2001:db8::123,[fd00::1]:1123,ntp.metal.example`);
    expect(configToJson(c).ntpServers).toEqual(["[2001:db8::123]:123", "[fd00::1]:1123", "ntp.metal.example:123"]);
  });

  test("METAL_WATCHDOG: off, on, or a timeout", () => {
    expect(configFromCmdline(`${BASE} METAL_WATCHDOG=0`).watchdog.enabled).toBe(false);
    expect(configFromCmdline(`${BASE} METAL_WATCHDOG=off`).watchdog.enabled).toBe(false);
    expect(configFromCmdline(`${BASE} METAL_WATCHDOG`).watchdog).toEqual({ enabled: true, timeoutS: 60 });
    expect(configFromCmdline(`${BASE} METAL_WATCHDOG=2m`).watchdog).toEqual({ enabled: true, timeoutS: 120 });
  });

  test("bad values name the parameter, the value and what was expected", () => {
    expect(usage(`${BASE} METAL_NTP_SERVERS=ntp..bad`)).toBe(
      'METAL_NTP_SERVERS="ntp..bad": expected a comma-separated list of NTP servers: IPv6 addresses (2001:db8::123 or [2001:db8::123]:123), IPv4 addresses or host names',
    );
    expect(usage(`${BASE} METAL_WATCHDOG=2s`)).toBe('METAL_WATCHDOG="2s": expected 0/off, 1/on, or a timeout in whole seconds between 5s and 1h, like 60s or 2m');
    expect(usage(`${BASE} METAL_PLANNED_REBOOT=soon`)).toBe(
      'METAL_PLANNED_REBOOT="soon": expected off, or a bound plus an optional random jitter like 24h+24h or 12h (each 1m..7d)',
    );
  });
});
