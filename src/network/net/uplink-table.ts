/**
 * The shell of the uplinks (docs/network.md "Uplinks"): after bring-up it follows the
 * selected NICs, in the background every `refreshMs` and when `current()` is asked after
 * that long: it dumps links, addresses and routes, finds the uplinks (uplinks.ts),
 * writes what changed of their tables and rules over rtnetlink (uplink-routing.ts) and
 * returns the uplinks whose routing is in place, in order. The HTTP clients bind each connection to one of them
 * (clients/http/http-client.ts). An uplink comes when its NIC has carrier, a usable address
 * and a router, and goes when one of them goes; each change is one `net.uplink` line.
 * A routing write that fails is a warning (`net.uplink.routing`) and that uplink is
 * not offered: the machine still has the main table.
 */
import { EEXIST, ENOENT, ESRCH } from "../../platform/sys/errno.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { NetlinkError, NetlinkSocket } from "../netlink/socket.ts";
import { dumpAll } from "./loop.ts";
import { describeStep, planUplinkRouting, routingRequest, type RoutingStep } from "./uplink-routing.ts";
import { findUplinks, type Uplink } from "./uplinks.ts";

/** How often `current()` looks again (a dump of links, addresses and routes: ~1 ms). */
export const UPLINK_REFRESH_MS = 1000;

export interface UplinkTableOptions {
  readonly log: Logger;
  readonly refreshMs?: number;
  readonly now?: () => number;
  /** The rtnetlink socket (default: one opened on first use, closed by `close()`). */
  readonly socket?: () => NetlinkSocket;
  /** Called when an uplink was added or dropped (status.json; the HTTP client closes connections through a dropped one). */
  readonly onChange?: () => void;
  /** Runs `fn` every `ms` until the returned stop is called (default: an unref'd setInterval). */
  readonly every?: (fn: () => void, ms: number) => () => void;
}

const realEvery = (fn: () => void, ms: number): (() => void) => {
  const t = setInterval(fn, ms);
  t.unref?.();
  return () => clearInterval(t);
};

/** An uplink now, or one that was and was dropped (kept to show in status). */
export interface UplinkFacts extends Uplink {
  readonly up: boolean;
}

/** A step whose failure leaves things as wanted: the rule is there already, or the route/rule is gone already (with its link). */
function harmless(step: RoutingStep, errno: number): boolean {
  return step.op === "new" ? errno === EEXIST : errno === ENOENT || errno === ESRCH;
}

export class UplinkTable {
  readonly #opts: UplinkTableOptions;
  #names: readonly string[] = [];
  #rq: NetlinkSocket | undefined;
  #installed: Uplink[] = [];
  /** Every uplink seen, by name, the last facts of each (dropped ones too). */
  readonly #seen = new Map<string, Uplink>();
  #checkedAt = -Infinity;
  /** Ends the background look (close). */
  #stop: (() => void) | undefined;

  constructor(opts: UplinkTableOptions) {
    this.#opts = opts;
  }

  /**
   * From now on the uplinks are these NICs (by name, in the selection's order); looks at
   * once, then in the background every refreshMs: a NIC that becomes ready after bring-up
   * is added, one whose carrier, address or router goes is dropped, without waiting for a
   * request.
   */
  follow(names: readonly string[]): readonly Uplink[] {
    this.#names = [...names];
    this.#stop ??= (this.#opts.every ?? realEvery)(() => void this.refresh(), this.#opts.refreshMs ?? UPLINK_REFRESH_MS);
    return this.refresh();
  }

  /** The uplinks in order, looked at again when the last look is older than refreshMs. */
  current(): readonly Uplink[] {
    const now = (this.#opts.now ?? performance.now.bind(performance))();
    if (this.#names.length === 0 || now - this.#checkedAt < (this.#opts.refreshMs ?? UPLINK_REFRESH_MS)) return this.#installed;
    return this.refresh();
  }

  /** Looks now: dump, find, write the differences. */
  refresh(): readonly Uplink[] {
    this.#checkedAt = (this.#opts.now ?? performance.now.bind(performance))();
    if (this.#names.length === 0) return this.#installed;
    let wanted: Uplink[];
    try {
      wanted = findUplinks(dumpAll(this.#socket()), this.#names);
    } catch (e) {
      logEvent(this.#opts.log, "net.uplink.routing", { error: (e as Error).message }, `uplinks not refreshed: ${(e as Error).message}`, "warn");
      return this.#installed;
    }
    this.#apply(wanted);
    return this.#installed;
  }

  #socket(): NetlinkSocket {
    this.#rq ??= (this.#opts.socket ?? (() => NetlinkSocket.open()))();
    return this.#rq;
  }

  /** Writes the plan; the uplinks whose steps all held are the installed ones. */
  #apply(wanted: readonly Uplink[]): void {
    const before = this.#installed;
    const failed = new Set<string>();
    for (const step of planUplinkRouting(before, wanted)) {
      const name = step.kind === "main-first" ? undefined : step.name;
      if (name !== undefined && failed.has(name) && step.op === "new") continue;
      const err = this.#write(step);
      if (err === undefined) continue;
      if (name !== undefined) failed.add(name);
      else if (step.op === "new") for (const u of wanted) failed.add(u.name);
      logEvent(this.#opts.log, "net.uplink.routing", { ...(name ? { ifname: name } : {}), step: describeStep(step), error: err }, err, "warn");
    }
    const now = wanted.filter((u) => !failed.has(u.name));
    const same = (a: Uplink, b: Uplink) => a.name === b.name && a.address === b.address && a.router === b.router;
    const changed = now.length !== before.length || now.some((u) => !before.some((b) => same(u, b)));
    for (const u of now)
      if (!before.some((b) => same(b, u)))
        logEvent(this.#opts.log, "net.uplink", { ifname: u.name, change: "added", address: u.address, router: u.router, preference: u.preference });
    for (const b of before)
      if (!now.some((u) => same(u, b))) logEvent(this.#opts.log, "net.uplink", { ifname: b.name, change: "dropped", address: b.address, router: b.router }, undefined, "warn");
    this.#installed = now;
    for (const u of now) this.#seen.set(u.name, u);
    if (changed) this.#opts.onChange?.();
  }

  /** Every uplink seen: those now (in order), then the dropped ones. */
  facts(): UplinkFacts[] {
    const up = this.#installed.map((u) => ({ ...u, up: true }));
    const dropped = [...this.#seen.values()].filter((s) => !this.#installed.some((u) => u.name === s.name)).map((u) => ({ ...u, up: false }));
    return [...up, ...dropped];
  }

  /** One step; undefined when done (or harmlessly not needed), else why not. */
  #write(step: RoutingStep): string | undefined {
    try {
      this.#socket().request(describeStep(step), routingRequest(step));
      return undefined;
    } catch (e) {
      if (e instanceof NetlinkError && harmless(step, e.errno)) return undefined;
      return (e as Error).message;
    }
  }

  /** Removes every table and rule it wrote, and closes its socket. */
  close(): void {
    this.#stop?.();
    this.#stop = undefined;
    if (this.#installed.length > 0 && this.#rq) this.#apply([]);
    this.#installed = [];
    this.#names = [];
    this.#rq?.close();
    this.#rq = undefined;
  }
}
