/**
 * Stand-in tokens: HS256 JWTs signed by a key made at start. A machine token is what
 * pixie mints in handleConfig (pixiecore/http.go:240-246: MACHINE_ROLE_EDITOR for that
 * uuid, 3 days); an infra token stands for pixiecore's own (INFRA_ROLE_EDITOR). The
 * apiserver stand-in refuses a token past its exp as `unauthenticated` (expired()).
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Subject } from "./rules.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export class TokenIssuer {
  readonly #key = randomBytes(32);
  readonly #byToken = new Map<string, NonNullable<Subject>>();
  /** token -> its exp claim (s since epoch). */
  readonly #expiry = new Map<string, number>();

  /** Every token handed out (tests scan logs for them). */
  get issued(): string[] {
    return [...this.#byToken.keys()];
  }

  #sign(claims: Record<string, unknown>, subject: NonNullable<Subject>, ttlS: number): string {
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ ...claims, iss: "metal-boot-standin", iat: now, exp: now + ttlS })}`;
    const token = `${head}.${createHmac("sha256", this.#key).update(head).digest("base64url")}`;
    this.#byToken.set(token, subject);
    this.#expiry.set(token, now + ttlS);
    return token;
  }

  issue(uuid: string, ttlS = 3 * 24 * 3600): string {
    return this.#sign({ sub: uuid, machine_roles: { [uuid]: "MACHINE_ROLE_EDITOR" } }, { kind: "machine", uuid }, ttlS);
  }

  /** `service`: the infra service it is for (metal-boot's own token; its calls are not recorded as the machines'). */
  issueInfra(ttlS = 3600, service?: string): string {
    return this.#sign({ sub: service ?? "pixiecore", infra_role: "INFRA_ROLE_EDITOR" }, service ? { kind: "infra", service } : { kind: "infra" }, ttlS);
  }

  /**
   * Whether a token this issuer made has passed its exp claim (a JWT verifier refuses it from
   * the second of exp on). The apiserver's auth interceptor is not in the reference
   * (metal-apiserver@3f09705a pkg/service/services.go:268 auth.With): the refusal is
   * `unauthenticated` as for any token it cannot accept.
   */
  expired(token: string, nowMs = Date.now()): boolean {
    const exp = this.#expiry.get(token);
    return exp !== undefined && Math.floor(nowMs / 1000) >= exp;
  }

  /** Who a token was issued for, or undefined. */
  subject(token: string): Subject {
    return this.#byToken.get(token);
  }

  /** The machine uuid a token was issued for, or undefined. */
  verify(token: string): string | undefined {
    const s = this.#byToken.get(token);
    return s?.kind === "machine" ? s.uuid : undefined;
  }
}
