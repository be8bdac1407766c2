/**
 * GET <metal-boot>/config/<uuid>: pixie's MetalConfig with the machine token. The
 * token (and every other secret field) is registered with the secret set the moment
 * the answer is parsed, before anything could log it. pixie mints a token for any
 * uuid (pixiecore/http.go handleConfig), so a 404 means a wrong URL, not an unknown
 * machine.
 */
import { AgentError } from "../../platform/errors.ts";
import type { HttpClient } from "../http/http-client.ts";
import { parseAnswer } from "../http/answer.ts";
import type { SecretSet } from "../../platform/log/redact.ts";
import { MetalConfigSchema, secretsIn, type MetalConfig } from "./config-schema.ts";

export interface BootFetch {
  readonly config: MetalConfig;
  readonly url: URL;
  readonly latencyMs: number;
  readonly address: string | undefined;
  readonly attempts: number;
}

export function configUrl(base: URL, uuid: string): URL {
  const u = new URL(base.href);
  if (!u.pathname.endsWith("/")) u.pathname += "/";
  return new URL(`config/${encodeURIComponent(uuid)}`, u);
}

export async function fetchBootConfig(http: HttpClient, base: URL, uuid: string, secrets: SecretSet): Promise<BootFetch> {
  const url = configUrl(base, uuid);
  const what = "metal-boot config";
  const res = await http.request({ method: "GET", url, what, headers: { accept: "application/json" } });
  if (res.status !== 200) {
    const code = res.status === 401 || res.status === 403 ? "auth" : res.status >= 500 ? "unreachable" : "metal_boot";
    const hint = res.status === 404 ? " (metal-boot serves /config/<uuid> for any machine: is METAL_BOOT_URL right?)" : "";
    throw new AgentError(code, `metal-boot: GET ${url.href} answered ${res.status} after ${res.attempts} attempt(s)${hint}`, { url: url.href, status: res.status });
  }
  const config = parseAnswer(res.body, MetalConfigSchema, `metal-boot answer to GET ${url.href}`, (raw) => {
    for (const s of secretsIn(raw)) secrets.add(s);
  });
  return { config, url, latencyMs: res.latencyMs, address: res.address, attempts: res.attempts };
}
