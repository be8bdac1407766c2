/**
 * Stand-in tokens: HS256 JWTs signed by a key made at start. A machine token is what
 * pixie mints in handleConfig (pixiecore/http.go:240-246: MACHINE_ROLE_EDITOR for that
 * uuid, 3 days); an infra token stands for pixiecore's own (INFRA_ROLE_EDITOR).
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Subject } from "./rules.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export class TokenIssuer {
  readonly #key = randomBytes(32);
  readonly #byToken = new Map<string, NonNullable<Subject>>();

  /** Every token handed out (tests scan logs for them). */
  get issued(): string[] {
    return [...this.#byToken.keys()];
  }

  #sign(claims: Record<string, unknown>, subject: NonNullable<Subject>, ttlS: number): string {
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ ...claims, iss: "metal-boot-standin", iat: now, exp: now + ttlS })}`;
    const token = `${head}.${createHmac("sha256", this.#key).update(head).digest("base64url")}`;
    this.#byToken.set(token, subject);
    return token;
  }

  issue(uuid: string, ttlS = 3 * 24 * 3600): string {
    return this.#sign({ sub: uuid, machine_roles: { [uuid]: "MACHINE_ROLE_EDITOR" } }, { kind: "machine", uuid }, ttlS);
  }

  /** `service`: the infra service it is for (metal-boot's own token; its calls are not recorded as the machines'). */
  issueInfra(ttlS = 3600, service?: string): string {
    return this.#sign({ sub: service ?? "pixiecore", infra_role: "INFRA_ROLE_EDITOR" }, service ? { kind: "infra", service } : { kind: "infra" }, ttlS);
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
