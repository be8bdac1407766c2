/**
 * The HTTP side of shipping: one undici Agent for the Loki endpoint with basic auth or
 * a client certificate from the config, bounded timeouts, no retries (the shipper
 * backs off and retries itself), connections bound to the HTTP client's uplinks. Each push has an overall deadline and reads at most
 * ERROR_BODY_CAP of the answer (docs/bounds.md): an endless or trickling answer can
 * neither grow the agent nor hold the shipper forever. The password and key are
 * registered with the process's SecretSet first, so no log line, error or status file
 * can carry them.
 *
 * undici is imported as "undici/index.js" (a bare "undici" resolves to Bun's built-in
 * stand-in, which ignores `dispatcher`; see src/clients/http/http-client.ts).
 */
import { Agent, buildConnector } from "undici/index.js";
import { ERROR_BODY_CAP, readCapped } from "../../clients/http/http-client.ts";
import type { UplinkConnector } from "../../clients/http/uplink-connect.ts";
import type { SecretSet } from "../../platform/log/redact.ts";
import { redactUrl } from "../../platform/log/redact.ts";
import type { LokiTarget } from "./remote-log-config.ts";
import type { PushFn } from "./shipper.ts";

export interface TransportOptions {
  readonly secrets: SecretSet;
  /** PEM CAs trusted for an https endpoint (METAL_CA's bundle, metal-boot's CA). */
  readonly ca?: readonly string[];
  /** connect, headers and silence inside the answer (default 5 s). */
  readonly timeoutMs?: number;
  /** One whole push, answer included (default PUSH_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /** The HTTP client's uplinks: pushes are bound to them as every other connection (docs/network.md "Uplinks"). */
  readonly uplinks?: UplinkConnector;
}

export const PUSH_DEADLINE_MS = 15_000;

export interface LokiTransport {
  readonly push: PushFn;
  close(): Promise<void>;
  /** How it authenticates, in words (for the log line): "basic auth", "client certificate", "none". */
  readonly auth: string;
}

export function lokiTransport(t: LokiTarget, opts: TransportOptions): LokiTransport {
  const timeout = opts.timeoutMs ?? 5000;
  const deadlineMs = opts.deadlineMs ?? PUSH_DEADLINE_MS;
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "metal-hammer" };
  if (t.basicAuth) {
    opts.secrets.add(t.basicAuth.password);
    const cred = Buffer.from(`${t.basicAuth.user}:${t.basicAuth.password}`).toString("base64");
    opts.secrets.add(cred);
    headers.authorization = `Basic ${cred}`;
  }
  const cert = t.certificateAuth;
  if (cert) opts.secrets.add(cert.key);
  const base = buildConnector({
    timeout,
    ...(opts.ca && opts.ca.length > 0 ? { ca: [...opts.ca] } : {}),
    ...(cert ? { cert: cert.cert, key: cert.key, rejectUnauthorized: !cert.insecureSkipVerify } : {}),
  });
  const uplinks = opts.uplinks;
  const agent = new Agent({
    connect: uplinks ? (o, cb) => uplinks.connect(base, o, cb) : base,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const where = redactUrl(t.endpoint);
  return {
    auth: t.basicAuth ? "basic auth" : cert ? "client certificate" : "none",
    async push(body) {
      const signal = AbortSignal.timeout(deadlineMs);
      let text: string;
      let status: number;
      try {
        const r = await agent.request({ origin: t.endpoint.origin, path: t.endpoint.pathname + t.endpoint.search, method: "POST", headers, body, signal });
        status = r.statusCode;
        text = new TextDecoder().decode(await readCapped(r.body, ERROR_BODY_CAP, true, () => new Error("unreachable")));
      } catch (e) {
        if (signal.aborted) throw new Error(`${where}: no complete answer within the deadline of ${deadlineMs} ms`);
        throw e;
      }
      if (status < 200 || status >= 300) throw new Error(`${where}: HTTP ${status} ${text.slice(0, 200)}`);
    },
    close: () => agent.close(),
  };
}
