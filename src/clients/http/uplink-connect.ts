/**
 * Connections bound to uplinks (docs/network.md "Uplinks"), for every undici Agent of
 * the agent (the HTTP client's, the Loki transport's): `connect` wraps an undici
 * connector. Without uplinks (or none of the server's family) it connects unbound, as
 * before; with uplinks it binds each attempt to an uplink's address and races them
 * Happy-Eyeballs style (uplink-race.ts). The uplink that connected stays first until it
 * fails; each move to another is one `http.uplink` warn line naming both NICs and why.
 * What each uplink last came to (connected, or its last error) is kept for status.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici/index.js";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { attemptOrder, errorWords, switchReason, type LocalUplink, type Lost, type UplinkSource } from "./uplink-order.ts";
import { AllUplinksFailed, CONNECT_ATTEMPT_DELAY_MS, raceUplinks, type ConnectAttempt } from "./uplink-race.ts";

export interface UplinkConnectorOptions {
  readonly uplinks?: UplinkSource;
  readonly log: Logger;
  /** Happy Eyeballs' connection attempt delay between uplinks (default CONNECT_ATTEMPT_DELAY_MS). */
  readonly delayMs?: number;
  /** Wall clock for the outcomes (default Date.now). */
  readonly now?: () => number;
  /** Called after each raced connection (status.json shows the outcomes). */
  readonly onOutcome?: () => void;
}

/** What the last attempt through an uplink came to (status.json, `status`). */
export interface UplinkOutcome {
  readonly ok: boolean;
  /** Epoch ms. */
  readonly at: number;
  /** The error in words, when it failed or was still connecting when another won. */
  readonly error?: string;
}

/** How long `closePreferred` waits for the closed connections' close events at most. */
const CLOSE_WAIT_MS = 1_000;

type Connector = (o: buildConnector.Options, cb: buildConnector.Callback) => { destroy(): unknown } | undefined;

export class UplinkConnector {
  readonly #opts: UplinkConnectorOptions;
  /** The uplink that made the last connection: tried first until it fails. */
  #preferred: string | undefined;
  readonly #outcomes = new Map<string, UplinkOutcome>();
  readonly #lastErrors = new Map<string, UplinkOutcome>();
  /** The open connections made through each uplink (by NIC name and address): closed when it is no uplink any more. */
  readonly #open = new Map<string, Set<Socket>>();

  constructor(opts: UplinkConnectorOptions) {
    this.#opts = opts;
  }

  get preferred(): string | undefined {
    return this.#preferred;
  }

  /** Each uplink's last outcome, by NIC name. */
  outcomes(): ReadonlyMap<string, UplinkOutcome> {
    return this.#outcomes;
  }

  /** Each uplink's last failure, by NIC name (kept after it worked again). */
  lastErrors(): ReadonlyMap<string, UplinkOutcome> {
    return this.#lastErrors;
  }

  #most = 0;

  #note(name: string, o: UplinkOutcome): void {
    this.#outcomes.set(name, o);
    if (!o.ok) this.#lastErrors.set(name, o);
  }

  /**
   * The uplinks now, of the server's family only (an IPv4 literal is never reached from
   * an IPv6 source). Connections through an uplink that is gone (its carrier, address or
   * router went) are closed here: a pooled one would otherwise be reused into a dead path
   * until its own timeouts, and a stream on one breaks now and reconnects.
   */
  uplinksFor(hostname: string): readonly LocalUplink[] {
    const all = this.closeGone();
    const v4 = /^[\d.]+$/.test(hostname);
    const mine = all.filter((u) => u.address.includes(":") !== v4);
    this.#most = Math.max(this.#most, mine.length);
    return mine;
  }

  /**
   * Whether two uplinks or more were ever seen at once: then every connection is bound,
   * also when one is left (the kernel's main table may still name the one that went: an
   * unbound connection would follow it).
   */
  get multiHomed(): boolean {
    return this.#most >= 2;
  }

  /** Closes the connections through uplinks that are gone; the uplinks now. */
  closeGone(): readonly LocalUplink[] {
    const all = this.#opts.uplinks?.current() ?? [];
    for (const [key, sockets] of this.#open) {
      if (all.some((u) => `${u.name} ${u.address}` === key)) continue;
      this.#open.delete(key);
      for (const socket of sockets) socket.destroy(aborted(`uplink ${key.split(" ")[0]} is gone (carrier, address or router)`));
    }
    return all;
  }

  /**
   * Closes the open connections through the preferred uplink (a connection through it
   * broke: HttpClient); resolves once each has closed (a socket closes a tick after
   * `destroy`: a request sent before that is handed to its pooled connection and fails).
   */
  closePreferred(): Promise<void> {
    return this.#preferred !== undefined ? this.#closeThrough(this.#preferred, "a connection through it broke") : Promise.resolve();
  }

  #closeThrough(name: string, why = "a new connection through it failed"): Promise<void> {
    const closed: Promise<void>[] = [];
    for (const [key, sockets] of this.#open) {
      if (key.split(" ")[0] !== name) continue;
      this.#open.delete(key);
      for (const socket of sockets) {
        if (!socket.closed) closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
        socket.destroy(aborted(`uplink ${name}: ${why}`));
      }
    }
    // Bounded all the same (a close is a tick after destroy): the caller is an image download's resume.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    return Promise.race([Promise.all(closed).then(() => undefined), bound]).finally(() => clearTimeout(timer));
  }

  #track(u: LocalUplink, socket: Socket): void {
    const key = `${u.name} ${u.address}`;
    const set = this.#open.get(key) ?? new Set<Socket>();
    this.#open.set(key, set);
    set.add(socket);
    socket.once("close", () => set.delete(socket));
  }

  /** Connects through `base`: unbound without uplinks, else bound and raced; `cb` as undici's connector calls it. */
  connect(base: buildConnector.connector, o: buildConnector.Options, cb: buildConnector.Callback): void {
    const uplinks = this.uplinksFor(o.hostname);
    if (uplinks.length === 0) {
      base(o, cb);
      return;
    }
    this.#race(base as unknown as Connector, o, uplinks).then(
      (socket) => cb(null, socket),
      (e: unknown) => cb(e instanceof AllUplinksFailed && e.cause instanceof Error ? e.cause : (e as Error), null),
    );
  }

  async #race(base: Connector, o: buildConnector.Options, uplinks: readonly LocalUplink[]): Promise<Socket> {
    const before = this.#preferred;
    const order = attemptOrder(uplinks, before);
    const delayMs = this.#opts.delayMs ?? CONNECT_ATTEMPT_DELAY_MS;
    const now = this.#opts.now ?? Date.now;
    const start = (u: LocalUplink): ConnectAttempt<Socket> => {
      let socket: { destroy(): unknown } | undefined;
      const result = new Promise<Socket>((resolve, reject) => {
        socket = base({ ...o, localAddress: u.address }, (err, s) => {
          if (err || !s) reject(err ?? new Error("no socket"));
          else resolve(s as Socket);
        });
      });
      return { result, cancel: () => socket?.destroy() };
    };
    let won: Awaited<ReturnType<typeof raceUplinks<LocalUplink, Socket>>>;
    try {
      won = await raceUplinks(order, start, delayMs);
    } catch (e) {
      if (e instanceof AllUplinksFailed)
        for (const f of e.failed as AllUplinksFailed<LocalUplink>["failed"]) this.#note(f.uplink.name, { ok: false, at: now(), error: errorWords(f.error) });
      this.#opts.onOutcome?.();
      throw e;
    }
    for (const f of won.failed) this.#note(f.uplink.name, { ok: false, at: now(), error: errorWords(f.error) });
    for (const p of won.pending) this.#note(p.name, { ok: false, at: now(), error: `no connection within the connect-attempt delay of ${delayMs} ms` });
    this.#note(won.winner.name, { ok: true, at: now() });
    this.#track(won.winner, won.socket);
    const first = order[0] as LocalUplink;
    const from = before !== undefined && first.name !== before ? before : first.name;
    // Another race that started from the same uplink moved to this winner first (connections made at once, as a
    // resume's and a pooled client's reconnect): that one's line and closing said it.
    const movedAlready = before !== undefined && this.#preferred === won.winner.name && before !== won.winner.name;
    if (won.winner.name !== from && !movedAlready) {
      const lostFirst: Lost | undefined =
        from !== first.name ? undefined : won.pending.includes(first) ? { pending: true } : { failed: won.failed.find((f) => f.uplink === first)?.error };
      const why = switchReason(from, lostFirst, delayMs);
      logEvent(
        this.#opts.log,
        "http.uplink",
        { from, to: won.winner.name, address: won.winner.address, host: o.hostname, reason: why },
        `connections now go through ${won.winner.name} instead of ${from}: ${why}`,
        "warn",
      );
      // A new connection through `from` failed or stayed silent: the open ones through it are likely dead too (a pooled one
      // would be reused into the dead path, a held stream would hang). Closed: a stream reconnects, a download resumes.
      void this.#closeThrough(from);
    }
    this.#preferred = won.winner.name;
    this.#opts.onOutcome?.();
    return won.socket;
  }
}

/**
 * The error a connection we close ourselves ends with: ECONNABORTED (the errno of a
 * connection aborted on this side), so whoever reads through it sees a connect-level
 * failure (classify.ts) and goes again through another uplink (an image download resumes
 * by Range) instead of failing on an error without a code.
 */
function aborted(message: string): Error {
  return Object.assign(new Error(message), { code: "ECONNABORTED" });
}
