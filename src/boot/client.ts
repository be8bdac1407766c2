/**
 * GET <metal-boot>/config/<uuid>: the machine's config and token. The token is
 * registered with the secret set the moment the answer is parsed, before anything
 * could log it.
 */
import { AgentError } from "../errors.ts";
import type { HttpClient } from "../http/client.ts";
import { parseAnswer } from "../http/answer.ts";
import type { SecretSet } from "../log/redact.ts";
import { BootConfigSchema, type BootConfig } from "./config-schema.ts";

export interface BootFetch {
  readonly config: BootConfig;
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
  if (res.status === 404) {
    throw new AgentError("metal_boot", `metal-boot does not know this machine: GET ${url.href} answered 404 (uuid ${uuid}); is the machine registered in this partition?`, { url: url.href, uuid, status: 404 });
  }
  if (res.status !== 200) {
    const code = res.status === 401 || res.status === 403 ? "auth" : res.status >= 500 ? "unreachable" : "metal_boot";
    throw new AgentError(code, `metal-boot: GET ${url.href} answered ${res.status} after ${res.attempts} attempt(s)`, { url: url.href, status: res.status });
  }
  const config = parseAnswer(res.body, BootConfigSchema, `metal-boot answer to GET ${url.href}`, (raw) => {
    if (raw && typeof raw === "object" && typeof (raw as { token?: unknown }).token === "string") secrets.add((raw as { token: string }).token);
  });
  return { config, url, latencyMs: res.latencyMs, address: res.address, attempts: res.attempts };
}
