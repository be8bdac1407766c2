/**
 * The HTTP side of shipping: one undici Agent for the Loki endpoint with basic auth or
 * a client certificate from the config, bounded timeouts, no retries (the shipper
 * backs off and retries itself). The password and key are registered with the
 * process's SecretSet first, so no log line, error or status file can carry them.
 *
 * undici is imported as "undici/index.js" (a bare "undici" resolves to Bun's built-in
 * stand-in, which ignores `dispatcher`; see src/http/client.ts).
 */
import { Agent } from "undici/index.js";
import type { SecretSet } from "../log/redact.ts";
import { redactUrl } from "../log/redact.ts";
import type { LokiTarget } from "./config.ts";
import type { PushFn } from "./shipper.ts";

export interface TransportOptions {
  readonly secrets: SecretSet;
  /** PEM CAs trusted for an https endpoint (METAL_CA's bundle, metal-boot's CA). */
  readonly ca?: readonly string[];
  readonly timeoutMs?: number;
}

export interface LokiTransport {
  readonly push: PushFn;
  close(): Promise<void>;
  /** How it authenticates, in words (for the log line): "basic auth", "client certificate", "none". */
  readonly auth: string;
}

export function lokiTransport(t: LokiTarget, opts: TransportOptions): LokiTransport {
  const timeout = opts.timeoutMs ?? 5000;
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "metal-hammer" };
  if (t.basicAuth) {
    opts.secrets.add(t.basicAuth.password);
    const cred = Buffer.from(`${t.basicAuth.user}:${t.basicAuth.password}`).toString("base64");
    opts.secrets.add(cred);
    headers.authorization = `Basic ${cred}`;
  }
  const cert = t.certificateAuth;
  if (cert) opts.secrets.add(cert.key);
  const agent = new Agent({
    connect: {
      timeout,
      ...(opts.ca && opts.ca.length > 0 ? { ca: [...opts.ca] } : {}),
      ...(cert ? { cert: cert.cert, key: cert.key, rejectUnauthorized: !cert.insecureSkipVerify } : {}),
    },
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const where = redactUrl(t.endpoint);
  return {
    auth: t.basicAuth ? "basic auth" : cert ? "client certificate" : "none",
    async push(body) {
      const r = await agent.request({ origin: t.endpoint.origin, path: t.endpoint.pathname + t.endpoint.search, method: "POST", headers, body });
      const text = await r.body.text();
      if (r.statusCode < 200 || r.statusCode >= 300) throw new Error(`${where}: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
    },
    close: () => agent.close(),
  };
}
