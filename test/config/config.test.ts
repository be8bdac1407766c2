import { describe, expect, test } from "bun:test";
import { configFromCmdline, configToJson } from "../../src/config/config.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { DEFAULT_RETRY } from "../../src/clients/http/retry.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

const BOOT = "METAL_BOOT_URL=https://[2001:db8::10]/";

function usageError(cmdline: string): AgentError {
  const e = agentErrorOf(() => configFromCmdline(cmdline));
  expect(e.code).toBe("usage");
  expect(e.exitCode).toBe(2);
  return e;
}

describe("configFromCmdline", () => {
  test("defaults for a minimal l3 cmdline", () => {
    const c = configFromCmdline(`console=ttyS0,115200n8 ${BOOT}`);
    expect(c.mode).toBe("l3");
    expect(c.metalBootUrl.href).toBe("https://[2001:db8::10]/");
    expect(c.policy).toBe("any");
    expect(c.netTimeoutMs).toBe(60_000);
    expect(c.fast).toBe(false);
    expect(c.allowHttp).toBe(false);
    expect(c.handoff).toEqual({ kind: "builtin" });
    expect(c.caBundle).toBe("/etc/ssl/certs/ca-certificates.crt");
    // console= is the kernel's (a known row, so not "ignored"); the agent takes it as it is for machine-details.yaml.
    expect(c.ignored).toEqual({});
    expect(c.console).toBe("ttyS0,115200n8");
    expect(c.logLevel).toBe("info");
  });

  test("every parameter set", () => {
    const c = configFromCmdline(
      `${BOOT} METAL_NICS=eth0,52:54:00:AB:cd:01 METAL_NET_POLICY=all METAL_NET_TIMEOUT=2m METAL_NET_FAST ` +
        `METAL_CA=/etc/metal/ca.pem METAL_UUID=4C4C4544-0042-3510-8052-B4C04F4B4E32 METAL_HANDOFF=exec:/usr/bin/next DEBUG=1`,
    );
    expect(c.nics).toEqual([
      { kind: "name", name: "eth0" },
      { kind: "mac", mac: "52:54:00:ab:cd:01" },
    ]);
    expect(c.policy).toBe("all");
    expect(c.netTimeoutMs).toBe(120_000);
    expect(c.fast).toBe(true);
    expect(c.caBundle).toBe("/etc/metal/ca.pem");
    expect(c.uuid).toBe("4c4c4544-0042-3510-8052-b4c04f4b4e32");
    expect(c.handoff).toEqual({ kind: "exec", path: "/usr/bin/next" });
    expect(c.logLevel).toBe("debug");
  });

  test("hostnames are accepted for metal-boot", () => {
    expect(configFromCmdline("METAL_BOOT_URL=https://metal-boot.partition-a.example:8443").metalBootUrl.host).toBe("metal-boot.partition-a.example:8443");
  });

  test("legacy pxe mode honours PIXIE_API_URL", () => {
    const c = configFromCmdline("console=ttyS0,115200n8 ip=dhcp carrier_timeout=10 PIXIE_API_URL=http://[fd00::1]:8080/certs DEBUG=1 METAL_MODE=pxe");
    expect(c.mode).toBe("pxe");
    expect(c.metalBootUrl.href).toBe("http://[fd00::1]:8080/");
    expect(c.ignored).toEqual({ ip: "dhcp", carrier_timeout: "10" });
    expect(c.logLevel).toBe("debug");
  });

  test("PID 1's parameters are PID 1's alone: a bad METAL_DONE or METAL_REBOOT_DELAY does not stop the agent, nor shows in its config", () => {
    const c = configFromCmdline(`${BOOT} METAL_DONE=explode METAL_REBOOT_DELAY=soon`);
    expect(c.ignored).toEqual({});
    expect(Object.keys(configToJson(c))).not.toContain("done");
    expect(Object.keys(configToJson(c))).not.toContain("rebootDelayMs");
  });

  test("console: the last console= as the kernel splits it (quotes removed), with its options; none when absent (the manufacturer decides); never refused", () => {
    expect(configFromCmdline(`console=tty0 ${BOOT} console=ttyS1,115200n8 quiet`).console).toBe("ttyS1,115200n8");
    expect(configFromCmdline(`${BOOT} console="ttyS1,115200n8"`).console).toBe("ttyS1,115200n8");
    expect(configFromCmdline(`${BOOT} quiet`).console).toBeUndefined();
    expect(configFromCmdline(`${BOOT} console console=`).console).toBeUndefined();
    expect(configToJson(configFromCmdline(BOOT)).console).toBeNull();
    expect(configFromCmdline(`${BOOT} console=hvc0 -- console=ttyS9`).console).toBe("hvc0");
    expect(configToJson(configFromCmdline(`${BOOT} console=ttyS1`)).console).toBe("ttyS1");
  });

  test("METAL_LOG_FORMAT: auto by default, json or text; anything else stops the agent naming it (PID 1 reads it leniently)", () => {
    expect(configFromCmdline(BOOT).logFormat).toBe("auto");
    expect(configFromCmdline(`${BOOT} METAL_LOG_FORMAT=json`).logFormat).toBe("json");
    expect(configFromCmdline(`${BOOT} METAL_LOG_FORMAT=text`).ignored).toEqual({});
    expect(usageError(`${BOOT} METAL_LOG_FORMAT=xml`).message).toBe('METAL_LOG_FORMAT="xml": expected one of auto, json, text');
  });

  test("unknown keys are kept aside", () => {
    expect(configFromCmdline(`${BOOT} quiet intel_iommu=on`).ignored).toEqual({ quiet: null, intel_iommu: "on" });
  });

  test("a bad duration names parameter, value and expectation", () => {
    expect(usageError(`${BOOT} METAL_NET_TIMEOUT=abc`).message).toBe('METAL_NET_TIMEOUT="abc": expected a duration like 90s or 2m');
  });

  test("METAL_RETRY_WINDOW: the HTTP retry window, by default the client's 60 s; a bad value names it", () => {
    expect(configFromCmdline(BOOT).retryWindowMs).toBe(DEFAULT_RETRY.totalMs);
    expect(DEFAULT_RETRY.totalMs).toBe(60_000);
    expect(configFromCmdline(`${BOOT} METAL_RETRY_WINDOW=5m`).retryWindowMs).toBe(300_000);
    expect(usageError(`${BOOT} METAL_RETRY_WINDOW=soon`).message).toBe('METAL_RETRY_WINDOW="soon": expected a duration like 90s or 2m');
    expect(usageError(`${BOOT} METAL_RETRY_WINDOW=500ms`).message).toBe('METAL_RETRY_WINDOW="500ms": expected a duration between 1s and 3600s');
  });

  test("a duration outside the bound says so", () => {
    expect(usageError(`${BOOT} METAL_NET_TIMEOUT=0s`).message).toBe('METAL_NET_TIMEOUT="0s": expected a duration between 1s and 3600s');
  });

  test("an empty value is an error, not a default", () => {
    expect(usageError(`${BOOT} METAL_NET_POLICY=`).message).toBe('METAL_NET_POLICY="": expected one of any, all');
  });

  test("a missing metal-boot URL in l3 mode", () => {
    expect(usageError("console=ttyS0").message).toBe("METAL_BOOT_URL: missing; expected the metal-boot base URL (https://...) in METAL_MODE=l3");
  });

  test("plain http needs the explicit opt-in", () => {
    expect(usageError("METAL_BOOT_URL=http://[fd00::1]/").message).toBe('METAL_BOOT_URL="http://[fd00::1]/": expected an https:// URL (plain http only with METAL_ALLOW_HTTP=1)');
    expect(configFromCmdline("METAL_BOOT_URL=http://[fd00::1]/ METAL_ALLOW_HTTP=1").allowHttp).toBe(true);
  });

  test("an IPv4 literal is refused in l3 mode (the boot VRF has no IPv4)", () => {
    expect(usageError("METAL_BOOT_URL=https://10.0.0.1/").details.parameter).toBe("METAL_BOOT_URL");
  });

  test("addresses no connection can reach are refused with exit 2, naming what is wrong", () => {
    const cases: [string, string][] = [
      ["https://[::]/", "the unspecified address :: can never be connected to"],
      ["https://[ff02::1]/", "the multicast address ff02::1 can never be connected to"],
      ["https://[fd00::1]:0/", "port 0 can never be connected to"],
      ["https://[::ffff:1.2.3.4]/", "the IPv4-mapped address ::ffff:102:304 can never be connected to"],
    ];
    for (const [url, why] of cases) {
      const e = usageError(`METAL_BOOT_URL=${url}`);
      expect([e.exitCode, e.details.parameter]).toEqual([2, "METAL_BOOT_URL"]);
      expect(e.message).toEndWith(why);
    }
    // Loopback and names stay usable (labs, tests).
    expect(configFromCmdline("METAL_BOOT_URL=https://[::1]:8443/").metalBootUrl.port).toBe("8443");
  });

  test("credentials in the URL are refused", () => {
    expect(usageError("METAL_BOOT_URL=https://user:pw@[fd00::1]/").message).toContain("METAL_BOOT_URL=");
  });

  test("non-ASCII values are shown escaped", () => {
    expect(usageError(`${BOOT} METAL_NET_POLICY=añy`).message).toBe('METAL_NET_POLICY="a\\u00f1y": expected one of any, all');
  });

  test("bad booleans, MAC lists and hand-offs", () => {
    expect(usageError(`${BOOT} DEBUG=maybe`).message).toStartWith('DEBUG="maybe": expected a boolean');
    expect(usageError(`${BOOT} METAL_NICS=eth0,,zz:zz`).message).toStartWith('METAL_NICS="eth0,,zz:zz": expected a comma-separated list');
    expect(usageError(`${BOOT} METAL_HANDOFF=exec:relative`).message).toBe('METAL_HANDOFF="exec:relative": expected builtin or exec:/absolute/path');
  });

  test("a bare flag where a value is needed", () => {
    expect(usageError(`${BOOT} METAL_NET_TIMEOUT`).message).toBe("METAL_NET_TIMEOUT=(bare flag): expected a duration like 90s or 2m");
  });

  test("the last duplicate wins for agent parameters too", () => {
    expect(configFromCmdline(`${BOOT} METAL_NET_POLICY=all METAL_NET_POLICY=any`).policy).toBe("any");
  });

  test("ip= in l3 mode is a warning naming the value; ip=off and pxe mode are not", () => {
    expect(configFromCmdline(`${BOOT} ip=dhcp`).warnings).toEqual([
      'ip="dhcp": the kernel\'s IPv4 autoconfiguration runs before the agent in METAL_MODE=l3 (brings NICs up before the IPv6 sysctls, waits for DHCP); expected no ip= or ip=off',
    ]);
    expect(configFromCmdline(`${BOOT} ip=off`).warnings).toEqual([]);
    expect(configFromCmdline(BOOT).warnings).toEqual([]);
    expect(configFromCmdline("METAL_MODE=pxe ip=dhcp PIXIE_API_URL=http://[fd00::1]:8080/certs").warnings).toEqual([]);
  });
});
