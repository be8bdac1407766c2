/**
 * What metal-boot answers on GET /config/<uuid>: pixie's MetalConfig
 * (metal-stack/pixie@8b0f1da5 api/api.go:4; pixiecore/http.go:232 handleConfig marshals it),
 * snake_case JSON; MEP-20's metal-boot "serves the same payload as pixiecore".
 * Unknown fields are ignored (metal_api_url, metal_apiserver_token, ...). Two optional
 * extensions of ours (docs/metal-boot.md), snake_case too: `ca` (PEM, trusted for the
 * apiserver in addition to METAL_CA) and `image_cache_url`.
 */
import { z } from "zod";
import ipaddr from "ipaddr.js";

const httpUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { message: "expected an http(s) URL" })
  .transform((s) => new URL(s));

const pem = z
  .string()
  .refine((s) => /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(s), { message: "expected a PEM certificate (-----BEGIN CERTIFICATE-----)" });

const ntpServer = z.string().refine((s) => ipaddr.isValid(s) || /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d+)?$/i.test(s), { message: "expected an IP address or host name" });

/** Go's omitempty/empty string: "" means absent. */
const optionalText = z
  .string()
  .optional()
  .transform((s) => (s === "" ? undefined : s));

/** The MetalConfig fields that hold secrets: registered with the secret set before validation. */
export const SECRET_FIELDS = [
  ["metal_apiserver_token_for_hammer"],
  ["metal_apiserver_token"],
  ["logging", "basic_auth", "password"],
  ["logging", "certificate_auth", "key"],
] as const;

export const MetalConfigSchema = z.object({
  // api.go: MetalAPIServerUrl `json:"metal_apiserver_url,omitempty"`; the agent needs it.
  metal_apiserver_url: httpUrl,
  // api.go: MetalAPIServerTokenForHammer `json:"metal_apiserver_token_for_hammer,omitempty"` (handleConfig fills it for any uuid).
  metal_apiserver_token_for_hammer: z.string().min(16, "expected a machine token (at least 16 characters)"),
  // api.go: Partition `json:"partition"` (always present, may be empty).
  partition: z.string().default(""),
  ntp_servers: z
    .array(ntpServer)
    .nullish()
    .transform((v) => v ?? []),
  debug: z.boolean().default(false),
  pixie_api_url: z.string().default(""),
  logging: z
    .object({
      endpoint: optionalText,
      basic_auth: z.object({ user: optionalText, password: optionalText }).nullish(),
      certificate_auth: z.object({ cert: optionalText, key: optionalText, insecure_skip_verify: z.boolean().default(false) }).nullish(),
      log_type: optionalText,
    })
    .nullish(),
  // Extensions (not in pixie): optional.
  ca: pem.optional(),
  image_cache_url: z.preprocess((v) => (v === "" ? undefined : v), httpUrl.optional()),
  // pixie PR #40 (metal-stack/pixie PR #40, branch oci-puller at 219bcc2: api/api.go:17): OciConfigs map[string]*OciCredentials `json:"oci_configs,omitempty"`,
  // keyed by registry URL; credentials for oci:// images (src/install/oci/credentials.ts).
  oci_configs: z
    .record(z.string(), z.object({ username: optionalText, password: optionalText }).nullish())
    .nullish()
    .transform((v) => v ?? {}),
});

export type MetalConfig = z.output<typeof MetalConfigSchema>;

/** The secret values in a raw answer (before validation), by SECRET_FIELDS. Pure. */
export function secretsIn(raw: unknown): string[] {
  const out: string[] = [];
  for (const path of SECRET_FIELDS) {
    let v: unknown = raw;
    for (const k of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    if (typeof v === "string" && v !== "") out.push(v);
  }
  // oci_configs.<registry>.password: under keys of the operator's choosing.
  const oci = raw && typeof raw === "object" ? (raw as Record<string, unknown>).oci_configs : undefined;
  if (oci && typeof oci === "object") {
    for (const entry of Object.values(oci as Record<string, unknown>)) {
      const pw = entry && typeof entry === "object" ? (entry as Record<string, unknown>).password : undefined;
      if (typeof pw === "string" && pw !== "") out.push(pw);
    }
  }
  return out;
}
