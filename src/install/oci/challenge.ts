/**
 * `WWW-Authenticate` challenges of a registry (RFC 7235 auth-params; the distribution
 * token spec: `Bearer realm="https://auth/token",service="registry",scope="repository:x:pull"`),
 * and the token request they lead to. Pure.
 */

export interface Challenge {
  /** Lowercase: "bearer", "basic". */
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** The challenges of one header value (several may be comma-joined). Pure. */
export function parseChallenges(header: string): Challenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  const re =
    /\s*(?:([A-Za-z][\w!#$%&'*+.^`|~-]*)\s+(?=[\w!#$%&'*+.^`|~-]+\s*=)|([\w!#$%&'*+.^`|~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]*)|([A-Za-z][\w!#$%&'*+.^`|~-]*)\s*(?=,|$))\s*,?/y;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while (re.lastIndex < header.length && (m = re.exec(header)) !== null) {
    if (m[0] === "") break;
    if (m[1] !== undefined) out.push({ scheme: m[1].toLowerCase(), params: {} });
    else if (m[4] !== undefined) out.push({ scheme: m[4].toLowerCase(), params: {} });
    else if (m[2] !== undefined && out.length > 0) {
      const raw = m[3] ?? "";
      const v = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
      (out[out.length - 1] as { params: Record<string, string> }).params[m[2].toLowerCase()] = v;
    }
  }
  return out;
}

/** The token URL of a Bearer challenge for pulling `repository` (the challenge's scope when it names one). Pure. */
export function tokenUrl(c: Challenge, repository: string): URL | undefined {
  const realm = c.params.realm;
  if (realm === undefined || !URL.canParse(realm)) return undefined;
  const u = new URL(realm);
  if (c.params.service !== undefined) u.searchParams.set("service", c.params.service);
  u.searchParams.set("scope", c.params.scope ?? `repository:${repository}:pull`);
  return u;
}
