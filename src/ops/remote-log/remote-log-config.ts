/**
 * The `logging` section of the config metal-boot serves, as pixie's MetalConfig
 * defines it (metal-stack/pixie@8b0f1da5 api/api.go:17 Logging{endpoint, basic_auth{user,
 * password}, certificate_auth{cert, key, insecure_skip_verify}, log_type}, LogTypeLoki
 * = "loki"). camelCase spellings are accepted too (this project's metal-boot answer
 * is camelCase, docs/metal-boot.md). Validated by zod; the secrets in it (password,
 * key) are registered with the process's SecretSet by the transport before use.
 */
import { z } from "zod";

const url = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { message: "expected an http(s) URL of the Loki push API, e.g. https://loki.example/loki/api/v1/push" })
  .transform((s) => new URL(s));

const basicAuth = z.object({ user: z.string().min(1, "expected a user name"), password: z.string() }).transform((b) => ({ user: b.user, password: b.password }));

const pemCert = z.string().refine((s) => s.includes("-----BEGIN CERTIFICATE-----"), { message: "expected a PEM certificate" });
const pemKey = z.string().refine((s) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(s), { message: "expected a PEM private key" });

const certAuth = z
  .object({
    cert: pemCert,
    key: pemKey,
    insecure_skip_verify: z.boolean().optional(),
    insecureSkipVerify: z.boolean().optional(),
  })
  .transform((c) => ({ cert: c.cert, key: c.key, insecureSkipVerify: c.insecure_skip_verify ?? c.insecureSkipVerify ?? false }));

export const LoggingSchema = z
  .object({
    endpoint: url.optional(),
    basic_auth: basicAuth.optional(),
    basicAuth: basicAuth.optional(),
    certificate_auth: certAuth.optional(),
    certificateAuth: certAuth.optional(),
    log_type: z.string().optional(),
    logType: z.string().optional(),
    level: z.enum(["trace", "debug", "info", "warn", "error"]).optional(),
  })
  .transform((l) => ({
    endpoint: l.endpoint,
    basicAuth: l.basic_auth ?? l.basicAuth,
    certificateAuth: l.certificate_auth ?? l.certificateAuth,
    type: l.log_type ?? l.logType ?? "loki",
    level: l.level,
  }));

export type Logging = z.output<typeof LoggingSchema>;

export interface LokiTarget {
  readonly endpoint: URL;
  readonly basicAuth?: { readonly user: string; readonly password: string };
  readonly certificateAuth?: { readonly cert: string; readonly key: string; readonly insecureSkipVerify: boolean };
}

/** Whether to ship, and where: upstream ignores an empty endpoint and any type but "loki" (metal-stack/metal-hammer@ec148e3 cmd/remote-logging.go:19-22). */
export function lokiTarget(l: Logging | undefined): { readonly kind: "ship"; readonly target: LokiTarget } | { readonly kind: "off"; readonly reason: string } {
  if (!l?.endpoint) return { kind: "off", reason: "no logging.endpoint in the config" };
  if (l.type !== "loki") return { kind: "off", reason: `unsupported logging.log_type ${JSON.stringify(l.type)} (only "loki")` };
  return {
    kind: "ship",
    target: { endpoint: l.endpoint, ...(l.basicAuth ? { basicAuth: l.basicAuth } : {}), ...(l.certificateAuth ? { certificateAuth: l.certificateAuth } : {}) },
  };
}
