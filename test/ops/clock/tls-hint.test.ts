import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clockTlsKind, explainClockTls } from "../../../src/ops/clock/tls-hint.ts";
import type { ClockState } from "../../../src/ops/clock/sync.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { TransportError } from "../../../src/clients/http/transport-error.ts";
import { silentLogger } from "../../../src/platform/log/logger.ts";
import { datedCert } from "../../helpers/dated-cert.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-tlsclock-"));

/** The AgentError the agent's HTTP client gives for a server with this certificate. */
async function tlsErrorFor(certFile: string): Promise<AgentError> {
  const srv = Bun.serve({
    hostname: "::1",
    port: 0,
    tls: { cert: readFileSync(join(dir, certFile), "utf8"), key: readFileSync(join(dir, "s.key"), "utf8") },
    fetch: () => new Response("ok"),
  });
  const http = new HttpClient({ caBundle: join(dir, "ca.pem"), allowHttp: false, log: silentLogger(), retry: { attempts: 1, baseMs: 1, maxMs: 1 } as never });
  try {
    await http.request({ method: "GET", url: new URL(`https://[::1]:${srv.port}/config/x`), what: "metal-boot config" });
    throw new Error("the request succeeded");
  } catch (e) {
    if (!(e instanceof AgentError)) throw e;
    return e;
  } finally {
    await http.close();
    srv.stop(true);
  }
}

beforeAll(() => {
  // Expired: valid until 2020-01-02.
  datedCert(dir, "expired.pem", "20200101000000Z", "20200102000000Z");
  // Not yet valid: from 2030 on (as a machine whose RTC says 2001 sees any certificate).
  datedCert(dir, "future.pem", "20300101000000Z", "20310101000000Z");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.parse("2001-01-01T00:05:00Z");
const noServers: ClockState = { servers: [], decision: "no_servers", rtc: "not_needed" };

describe("a TLS validity error names the machine's clock", () => {
  test("not yet valid, no NTP server: the message names the current time and METAL_NTP_SERVERS", async () => {
    const e = await tlsErrorFor("future.pem");
    expect(clockTlsKind(e)).toBe("not_yet_valid");
    const x = explainClockTls(e, NOW, noServers);
    expect(x.code).toBe("tls");
    expect(x.exitCode).toBe(22);
    expect(x.message).toStartWith("metal-boot config (https://[::1]:");
    expect(x.message).toContain("certificate is not yet valid [CERT_NOT_YET_VALID]");
    expect(x.message).toContain("the machine's clock says 2001-01-01T00:05:00.000Z");
    expect(x.message).toContain("set METAL_NTP_SERVERS=");
  });

  test("expired, NTP servers that gave nothing: the message names them and why", async () => {
    const e = await tlsErrorFor("expired.pem");
    expect(clockTlsKind(e)).toBe("expired");
    const x = explainClockTls(e, NOW, { servers: ["[fd00::123]:123"], decision: "unsynced", reasons: ["fd00::123: no answer within 1000 ms (3 attempt(s))"], rtc: "not_needed" });
    expect(x.message).toContain("certificate has expired [CERT_HAS_EXPIRED]");
    expect(x.message).toContain("The NTP servers in METAL_NTP_SERVERS ([fd00::123]:123) gave no usable time: fd00::123: no answer within 1000 ms");
  });

  test("with a synced clock the certificate itself is blamed", async () => {
    const e = await tlsErrorFor("expired.pem");
    const x = explainClockTls(e, Date.now(), { servers: ["[fd00::123]:123"], decision: "keep", offsetMs: 12, server: "[fd00::123]:123", syncedAt: Date.now(), rtc: "not_needed" });
    expect(x.message).toContain("the certificate itself is expired");
  });

  test("other TLS errors and other codes pass unchanged", () => {
    const wrongCa = new TransportError(
      "tls",
      "x: TLS verification failed: unable to get local issuer certificate [UNABLE_TO_GET_ISSUER_CERT_LOCALLY]",
      "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    );
    expect(explainClockTls(wrongCa, NOW, noServers)).toBe(wrongCa);
    const other = new AgentError("unreachable", "certificate has expired but this is not tls", {});
    expect(explainClockTls(other, NOW, noServers)).toBe(other);
  });

  test("the validity error is known by the TransportError's typed code, never by the log details", () => {
    expect(clockTlsKind(new TransportError("tls", "x: TLS verification failed", "CERT_HAS_EXPIRED"))).toBe("expired");
    expect(clockTlsKind(new TransportError("tls", "x: TLS verification failed", "CERT_NOT_YET_VALID"))).toBe("not_yet_valid");
    expect(clockTlsKind(new AgentError("tls", "x: TLS verification failed", { errorCode: "CERT_HAS_EXPIRED" }))).toBeUndefined();
  });
});
