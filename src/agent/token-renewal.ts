/**
 * The machine token as the apiserver client's renewable bearer (clients/api/bearer.ts).
 * pixie's token lives 3 days (metal-stack/pixie@8b0f1da5 pixiecore/http.go:240-245); a wait
 * may last up to 7 days (METAL_WAIT_TIMEOUT, METAL_PLANNED_REBOOT=off), and the apiserver
 * then refuses it as `unauthenticated`. A token that had worked and is refused has expired
 * (or was revoked): a new one comes from metal-boot's /config/<uuid>, as at boot (it mints one
 * for any uuid), replaces the 0600 token file and is logged by its expiry (never its value:
 * it is a secret from the moment it is parsed). One fetch at a time; calls refused meanwhile
 * retry with the new token.
 */
import type { Bearer } from "../clients/api/bearer.ts";
import type { Boot } from "../clients/metal-boot/boot.ts";
import { fetchBootConfig } from "../clients/metal-boot/metal-boot-client.ts";
import { MachineToken } from "../clients/metal-boot/machine-token.ts";
import { toAgentError } from "../platform/errors.ts";
import { writePrivateFile } from "../platform/fs/private-file.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

export class RenewingToken implements Bearer {
  #token: MachineToken;
  #worked = false;
  #renewals = 0;
  #inflight: Promise<boolean> | undefined;
  readonly #fetch: () => Promise<MachineToken>;

  constructor(token: MachineToken, fetchNew: () => Promise<MachineToken>) {
    this.#token = token;
    this.#fetch = fetchNew;
  }

  get token(): MachineToken {
    return this.#token;
  }

  get renewals(): number {
    return this.#renewals;
  }

  value(): string {
    return this.#token.reveal();
  }

  worked(used: string): void {
    if (used === this.#token.reveal()) this.#worked = true;
  }

  renew(used: string): Promise<boolean> {
    if (used !== this.#token.reveal()) return Promise.resolve(true);
    if (!this.#worked) return Promise.resolve(false);
    this.#inflight ??= this.#renew().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  async #renew(): Promise<boolean> {
    try {
      const next = await this.#fetch();
      this.#token = next;
      this.#worked = false;
      this.#renewals += 1;
      return true;
    } catch {
      return false;
    }
  }
}

/** The boot's token, renewed from metal-boot: each renewal written to the token file, logged and put in status.json. */
export function renewingToken(boot: Boot, s: Pick<Services, "http" | "secrets" | "log" | "ops">): RenewingToken {
  const holder: RenewingToken = new RenewingToken(boot.token, async () => {
    const previous = holder.token.info.expiresAt ?? null;
    try {
      const got = await fetchBootConfig(s.http, new URL(boot.metalBootUrl), boot.uuid, s.secrets);
      const token = new MachineToken(got.config.metal_apiserver_token_for_hammer);
      await writePrivateFile(boot.tokenFile, token.reveal(), "token file");
      const expiresAt = token.info.expiresAt ?? null;
      logEvent(
        s.log,
        "boot.token.renewed",
        { tokenExpiresAt: expiresAt, previousExpiresAt: previous, renewals: holder.renewals + 1, tokenFile: boot.tokenFile, attempts: got.attempts },
        `the apiserver refused the machine token that had worked (expired ${previous ?? "at an unknown time"}): a new one from metal-boot, expires ${expiresAt ?? "at an unknown time"}; the call is retried once`,
        "warn",
      );
      s.ops.tokenKnown(token.info, holder.renewals + 1);
      return token;
    } catch (e) {
      const err = toAgentError(e);
      logEvent(
        s.log,
        "boot.token.renewed",
        { tokenExpiresAt: null, previousExpiresAt: previous, failed: true, code: err.code, reason: err.message },
        `the apiserver refused the machine token that had worked (expired ${previous ?? "at an unknown time"}) and no new one came from metal-boot: ${err.message}`,
        "error",
      );
      throw e;
    }
  });
  return holder;
}
