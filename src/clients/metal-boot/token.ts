/**
 * The machine token: what may be shown of it (kind, subject, expiry; decoded when it
 * is a JWT, never verified here: the apiserver does that) and the 0600 file on tmpfs
 * the next stage reads it from (written with platform/fs/private-file.ts).
 */

export const TOKEN_FILE = "/run/metal/token";

export interface TokenInfo {
  readonly kind: "jwt" | "opaque";
  readonly length: number;
  readonly subject?: string;
  readonly issuer?: string;
  readonly expiresAt?: string;
  readonly issuedAt?: string;
}

function b64urlJson(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const iso = (n: unknown): string | undefined => (typeof n === "number" && Number.isFinite(n) ? new Date(n * 1000).toISOString() : undefined);

/** Metadata only: the result never contains the token or its signature. Pure. */
export function describeToken(token: string): TokenInfo {
  const parts = token.split(".");
  const payload = parts.length === 3 ? b64urlJson(parts[1] ?? "") : undefined;
  if (!payload || !b64urlJson(parts[0] ?? "")) return { kind: "opaque", length: token.length };
  const info: { -readonly [K in keyof TokenInfo]: TokenInfo[K] } = { kind: "jwt", length: token.length };
  if (typeof payload.sub === "string") info.subject = payload.sub;
  if (typeof payload.iss === "string") info.issuer = payload.iss;
  const exp = iso(payload.exp);
  if (exp) info.expiresAt = exp;
  const iat = iso(payload.iat);
  if (iat) info.issuedAt = iat;
  return info;
}
