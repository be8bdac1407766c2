/**
 * Secret scrubbing, applied to every log record and every error line the agent prints.
 * Two layers: fields whose *name* says secret are replaced wherever they nest, and
 * every known secret *value* (registered when it enters the process, e.g. the machine
 * token) plus anything after "Bearer " is cut out of the final text.
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
    let out = text.replace(BEARER, `$1${REDACTED}`);
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

/** A URL without userinfo and without secret-named query parameters. */
export function redactUrl(u: URL): string {
  const c = new URL(u.href);
  if (c.username || c.password) {
    c.username = REDACTED;
    c.password = "";
  }
  for (const k of [...c.searchParams.keys()]) if (isSecretKey(k)) c.searchParams.set(k, REDACTED);
  return c.href;
}
