/** Stand-in machine tokens: HS256 JWTs with sub=<uuid>, signed by a key made at start. */
import { createHmac, randomBytes } from "node:crypto";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export class TokenIssuer {
  readonly #key = randomBytes(32);
  readonly #byToken = new Map<string, string>();

  /** Every token handed out (tests scan logs for them). */
  get issued(): string[] {
    return [...this.#byToken.keys()];
  }

  issue(uuid: string, ttlS = 3 * 24 * 3600): string {
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: uuid, iss: "metal-boot-standin", iat: now, exp: now + ttlS, role: "MACHINE_ROLE_EDITOR" })}`;
    const token = `${head}.${createHmac("sha256", this.#key).update(head).digest("base64url")}`;
    this.#byToken.set(token, uuid);
    return token;
  }

  /** The uuid a token was issued for, or undefined. */
  verify(token: string): string | undefined {
    return this.#byToken.get(token);
  }
}
