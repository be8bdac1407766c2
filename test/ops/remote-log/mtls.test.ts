/**
 * Client-certificate authentication (pixie's certificate_auth) against the Loki
 * stand-in over TLS that requires a client certificate from its CA.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logEvent } from "../../../src/platform/log/logger.ts";
import { LoggingSchema } from "../../../src/ops/remote-log/remote-log-config.ts";
import { LogShipper } from "../../../src/ops/remote-log/shipper.ts";
import { startRemoteLog } from "../../../src/ops/remote-log/start-remote-log.ts";
import { makeCa, makeServerCert, type Ca, type ServerCert } from "../../../lab/standins/pki.ts";
import { startLoki, type LokiStandin } from "../../../lab/standins/loki.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-mtls-"));

/** A client certificate (extendedKeyUsage clientAuth) signed by `ca`. */
function makeClientCert(ca: Ca, name: string): ServerCert {
  const run = (args: string[]) => {
    const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  writeFileSync(join(dir, `${name}.ext`), "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
  run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`]);
  run(["x509", "-req", "-in", `${name}.csr`, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`]);
  return { cert: readFileSync(join(dir, `${name}.pem`), "utf8"), key: readFileSync(join(dir, `${name}.key`), "utf8") };
}
let ca: Ca;
let serverCert: ServerCert;
let clientCert: ServerCert;
let loki: LokiStandin;

beforeAll(() => {
  ca = makeCa(dir, "loki-ca");
  serverCert = makeServerCert(ca, "loki", ["::1"], ["loki.test"]);
  clientCert = makeClientCert(ca, "hammer-client");
  loki = startLoki("::1", 0, {}, { cert: serverCert.cert, key: serverCert.key, clientCa: ca.pem });
});
afterAll(() => {
  loki?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("shipping with a client certificate", () => {
  test("with certificate_auth the lines arrive; the key never reaches a log line", async () => {
    const shipper = new LogShipper({ intervalMs: 10 });
    const cap = capturingLogger(undefined, shipper.sink);
    const logging = LoggingSchema.parse({ endpoint: loki.pushUrl.href, certificate_auth: { cert: clientCert.cert, key: clientCert.key } });
    startRemoteLog(shipper, logging, { log: cap.log, secrets: cap.secrets, uuid: "u-1", ca: [ca.pem] });
    logEvent(cap.log, "agent.stage", { logging }, "over mTLS");
    await waitFor(() => loki.state.lines.some((l) => l.line.includes("over mTLS")) || shipper.stats.lastError, 10_000, "the line at Loki");
    expect(shipper.stats.lastError).toBeUndefined();
    expect(cap.events("remotelog.start")[0]!.auth).toBe("client certificate");
    const keyBody = clientCert.key.split("\n")[1]!;
    expect(cap.lines.join("")).not.toContain(keyBody);
    expect(loki.state.lines.map((l) => l.line).join("")).not.toContain(keyBody);
  }, 15_000);

  test("without a client certificate the TLS handshake is refused: counted as failed pushes, nothing arrives", async () => {
    const before = loki.state.lines.length;
    const shipper = new LogShipper({ intervalMs: 10 });
    const cap = capturingLogger(undefined, shipper.sink);
    startRemoteLog(shipper, LoggingSchema.parse({ endpoint: loki.pushUrl.href }), { log: cap.log, secrets: cap.secrets, uuid: "u-2", ca: [ca.pem] });
    logEvent(cap.log, "agent.stage", {}, "no client cert");
    await waitFor(() => shipper.stats.failedPushes > 0, 10_000, "a failed push");
    expect(shipper.stats.state).toBe("failing");
    expect(loki.state.lines.length).toBe(before);
  });
});
