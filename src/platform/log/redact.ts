/**
 * Secret scrubbing, applied to every log record and every error line the agent prints.
 * Two layers: fields whose *name* says secret are replaced wherever they nest, and
 * every known secret *value* (registered when it enters the process, e.g. the machine
 * token) plus anything after "Bearer " is cut out of the final text. URLs go through
 * one `redactUrl` (userinfo and signature-like query parameters of presigned URLs
 * dropped: X-Amz-Signature, X-Amz-Credential, X-Goog-Signature, Azure's sig, token, ...),
 * applied to URL fields, to URL strings in logged documents, and to every URL left in
 * the final text of a log or error line (scrubUrls), whatever logged it.
 */
export const REDACTED = "[redacted]";

const SECRET_KEY = /token|passw(or)?d|passphrase|secret|(^|[_-])key$|apikey|privatekey|authorization|cookie|credential/i;
/** camelCase names ending in Key (sshKey, privateKey); case-sensitive so "monkey" stays. */
const CAMEL_KEY = /[a-z0-9]Key$/;
/** Names that only point at or describe a secret (a path, an expiry), not the secret itself. */
const DESCRIBES_SECRET = /(file|path|expiry|expires|expiresAt|subject|ttl|present)$/i;

export function isSecretKey(key: string): boolean {
  return (SECRET_KEY.test(key) || CAMEL_KEY.test(key)) && !DESCRIBES_SECRET.test(key);
}

const BEARER = /(bearer\s+)[^\s"',;]+/gi;

/** Known secret values in this process. Values shorter than 6 characters are not tracked (too likely to hit ordinary text). */
export class SecretSet {
  readonly #values = new Set<string>();

  add(value: string | undefined | null): void {
    if (value && value.length >= 6) this.#values.add(value);
  }

  get size(): number {
    return this.#values.size;
  }

  /** Removes every known secret and every bearer credential from `text`. */
  scrub(text: string): string {
    let out = scrubUrls(text).replace(BEARER, `$1${REDACTED}`);
    for (const v of this.#values) {
      if (out.includes(v)) out = out.split(v).join(REDACTED);
      // JSON output escapes some characters; check the escaped spelling too.
      const escaped = JSON.stringify(v).slice(1, -1);
      if (escaped !== v && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
    }
    return out;
  }
}

/** Deep copy with secret-named fields replaced. Cycles and depth are bounded. */
export function redactFields(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > 12 || seen.has(value)) return "[...]";
  seen.add(value);
  if (value instanceof URL) return redactUrl(value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = { type: value.name, message: value.message };
    if (value.stack) out.stack = value.stack;
    for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redactFields(v, depth + 1, seen);
    if (value.cause !== undefined) out.cause = redactFields(value.cause, depth + 1, seen);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1, seen));
  if (value instanceof Headers || value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) out[String(k)] = isSecretKey(String(k)) ? REDACTED : redactFields(v, depth + 1, seen);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redactFields(v, depth + 1, seen);
  return out;
}

/**
 * Query parameters that carry a signature or credential in presigned URLs: AWS SigV4
 * (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token), SigV2 (Signature,
 * AWSAccessKeyId), GCS (X-Goog-Signature, X-Goog-Credential, GoogleAccessId), Azure SAS
 * (sig), CloudFront (Signature, Key-Pair-Id, Policy), and the usual token/key/auth names.
 */
const SIGNATURE_PARAM = /signature|^sig$|credential|token|accesskeyid|accessid|^key-pair-id$|^policy$|^(api[-_]?)?key$|secret|passw|^auth|^x-amz-date$/i;

export function isSecretParam(name: string): boolean {
  return SIGNATURE_PARAM.test(name) || isSecretKey(name);
}

/** A URL without userinfo and without secret-named or signature-like query parameters. */
export function redactUrl(u: URL | string): string {
  let c: URL;
  try {
    c = new URL(typeof u === "string" ? u : u.href);
  } catch {
    // Not a URL we can parse: cut anything that looks like userinfo.
    return String(u).replace(/\/\/[^/@\s]*@/, `//${REDACTED}@`);
  }
  if (c.username || c.password) {
    c.username = REDACTED;
    c.password = "";
  }
  for (const k of [...new Set(c.searchParams.keys())]) if (isSecretParam(k)) c.searchParams.set(k, REDACTED);
  return c.href;
}

const URL_IN_TEXT = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>\\`]+/g;

/** Every URL in `text` with userinfo or a secret parameter, redacted (redactUrl); other text unchanged. */
export function scrubUrls(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (m) => {
    const q = m.indexOf("?");
    const hasUser = /^[^/]*\/\/[^/]*@/.test(m);
    if (!hasUser && (q < 0 || ![...new URLSearchParams(m.slice(q + 1).split("#")[0]).keys()].some(isSecretParam))) return m;
    return redactUrl(m);
  });
}
