/**
 * The LLDP receiver and announcer over the selected NICs (the LldpSession of
 * neighbour.ts). Per NIC: the Intel firmware LLDP agent is turned off where the driver
 * offers it (fw-agent.ts), one AF_PACKET socket for ethertype 0x88cc joined to
 * 01:80:c2:00:00:0e (src/platform/sys/packet-socket.ts); one Worker polls all sockets
 * (reader-worker.ts), so the event loop never blocks. Starting before the links are up
 * is the intended use: the latched ENETDOWN is cleared and frames flow once a link is up.
 *
 * Received frames are decoded (lldpdu.ts) into the neighbour table (table.ts), which
 * expires entries by their TTL and keeps a few per NIC; a malformed frame is skipped
 * with one log line (at most one per NIC every 10 s, with the count of the ones not
 * logged), and neighbour changes are logged up to 10 per NIC in 10 s, the rest counted
 * in one `lldp.neighbour.flood` line (line-budget.ts). Our own frame
 * (encode.ts: chassis id = NIC MAC, system name = machine UUID) goes out on each NIC
 * as metal-hammer's go-lldpd does every 5 s with TTL 10 s, after a fast start of one a
 * second for the first 4 frames that could be sent (802.1AB txFast), so the switch
 * learns us soon after the link comes up.
 */
import { isMac } from "../../platform/ids/mac.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { errnoName } from "../../platform/sys/errno.ts";
import { PacketSocket, TC_PRIO_CONTROL } from "../../platform/sys/packet-socket.ts";
import { versionInfo } from "../../platform/version.ts";
import { encodeLldpFrame } from "./encode.ts";
import { disableFirmwareLldp, type FwLldpIo } from "./fw-agent.ts";
import { LineBudget } from "./line-budget.ts";
import { decodeLldpFrame, ETH_P_LLDP, LldpDecodeError, LLDP_MULTICAST, PORT_ID_MAC } from "./lldpdu.ts";
import { neighbourMac, type LldpInterface, type LldpNeighbour, type LldpSession } from "./neighbour.ts";
import type { ReaderOut } from "./reader-worker.ts";
import { distinctSwitches, MAX_NEIGHBOURS_PER_INTERFACE, NeighbourTable, type TableChange } from "./table.ts";

/** metal-hammer starts go-lldpd with a 5 s interval (cmd/network/interfaces.go); go-lldpd sends TTL = 2 x interval. */
export const TX_INTERVAL_MS = 5000;
const TX_FAST_MS = 1000;
const TX_FAST_INIT = 4;
const MALFORMED_LOG_EVERY_MS = 10_000;
/** A switch port's neighbour changes a few times a boot; a NIC's lines beyond these in a window are counted, not written. */
export const NEIGHBOUR_LOG_BURST = 10;
export const NEIGHBOUR_LOG_WINDOW_MS = 10_000;

/** Whether the neighbour's port id is a MAC address (lldpd's default; SONiC sends the port's alias instead). */
export const portIdIsMac = (n: Pick<LldpNeighbour, "portId">): boolean => isMac(n.portId);

export const PORT_ID_SUBTYPE_NAMES: Readonly<Record<number, string>> = {
  1: "interface alias",
  2: "port component",
  3: "MAC address",
  4: "network address",
  5: "interface name",
  6: "agent circuit id",
  7: "locally assigned",
};

export interface LldpOptions {
  readonly interfaces: readonly LldpInterface[];
  /** Our system name in the frames we send: the machine UUID. */
  readonly systemName: string;
  readonly log: Logger;
  /** Announce interval (default 5 s, as metal-hammer); TTL is twice that. */
  readonly txIntervalMs?: number;
  /** Send our own frames (default true). */
  readonly announce?: boolean;
  /** The firmware-agent switch (tests pass a fake; false skips it). */
  readonly fwAgent?: FwLldpIo | false;
  /** Called after the neighbour table changed (new, changed, expired). */
  readonly onChange?: () => void;
}

/**
 * From source the Worker file sits next to this one. In a `bun build --compile`
 * binary it is an extra entry point named relative to the entry points' common root
 * (src/), while import.meta.url is the binary itself (as src/network/netlink/event-source.ts).
 */
export function readerWorkerSpec(): string {
  return import.meta.url.startsWith("file:///$bunfs/") ? "./network/lldp/reader-worker.ts" : new URL("./reader-worker.ts", import.meta.url).href;
}

interface Port {
  readonly nic: LldpInterface;
  readonly sock: PacketSocket;
  readonly frame: Uint8Array;
  sent: number;
  nextSendAt: number;
  lastSendErrno: number | undefined;
  readonly malformedLog: LineBudget;
  readonly neighbourLog: LineBudget;
}

const monotonic = (): number => performance.now();

const EXPIRED_WHY: Readonly<Record<"expired" | "shutdown" | "replaced", string>> = {
  expired: "TTL ran out",
  shutdown: "sent a shutdown LLDPDU",
  replaced: `replaced by a newer neighbour (a NIC keeps at most ${MAX_NEIGHBOURS_PER_INTERFACE})`,
};

class Session implements LldpSession {
  private readonly table = new NeighbourTable();
  private readonly ports: Port[] = [];
  private readonly portByName = new Map<string, Port>();
  private readonly waiters = new Set<() => void>();
  private readonly stopFlag = new SharedArrayBuffer(4);
  private worker: Worker | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private closing: Promise<void> | undefined;
  private stopped = false;
  private readonly log: Logger;
  private readonly txIntervalMs: number;
  private readonly announce: boolean;
  private readonly onChange: (() => void) | undefined;

  constructor(opts: LldpOptions) {
    this.log = opts.log;
    this.onChange = opts.onChange;
    this.txIntervalMs = opts.txIntervalMs ?? TX_INTERVAL_MS;
    this.announce = opts.announce ?? true;
    const v = versionInfo();
    const systemDescription = `metal-hammer ${v.version} (${v.commit}) waiting since ${new Date().toISOString()} for installation`;
    const status: Record<string, unknown>[] = [];
    for (const nic of opts.interfaces) {
      if (opts.fwAgent !== false) disableFirmwareLldp(nic.name, this.log, opts.fwAgent);
      try {
        const sock = PacketSocket.open({ ifindex: nic.ifindex, ifname: nic.name, ethertype: ETH_P_LLDP, multicast: LLDP_MULTICAST, priority: TC_PRIO_CONTROL });
        const frame = encodeLldpFrame({ mac: nic.mac, ifname: nic.name, systemName: opts.systemName, systemDescription, ttlSeconds: (2 * this.txIntervalMs) / 1000 });
        const port: Port = {
          nic,
          sock,
          frame,
          sent: 0,
          nextSendAt: 0,
          lastSendErrno: undefined,
          malformedLog: new LineBudget(1, MALFORMED_LOG_EVERY_MS),
          neighbourLog: new LineBudget(NEIGHBOUR_LOG_BURST, NEIGHBOUR_LOG_WINDOW_MS),
        };
        this.ports.push(port);
        this.portByName.set(nic.name, port);
        status.push({ ifname: nic.name, listening: true, ...(sock.latched ? { latched: errnoName(sock.latched) } : {}) });
      } catch (e) {
        status.push({ ifname: nic.name, listening: false, error: (e as Error).message });
        logEvent(this.log, "lldp.error", { ifname: nic.name, error: (e as Error).message }, "cannot listen for LLDP on this NIC", "warn");
      }
    }
    logEvent(this.log, "lldp.start", { interfaces: status, systemName: opts.systemName, announce: this.announce, txIntervalMs: this.txIntervalMs });
    if (this.ports.length > 0) this.startWorker();
    this.tick();
    this.ticker = setInterval(() => this.tick(), TX_FAST_MS);
    this.ticker.unref?.();
  }

  private startWorker(): void {
    const w = new Worker(readerWorkerSpec());
    this.worker = w;
    w.onerror = (e) => logEvent(this.log, "lldp.error", { error: e.message }, "LLDP reader (Worker) failed: no more LLDP frames are read", "error");
    w.onmessage = (e: MessageEvent<ReaderOut>) => this.onReader(e.data);
    w.postMessage({ fds: this.ports.map((p) => p.sock.fd), stop: this.stopFlag });
    w.unref?.();
  }

  private onReader(m: ReaderOut): void {
    const port = "index" in m ? this.ports[m.index] : undefined;
    switch (m.kind) {
      case "frame":
        if (port) this.onFrame(port, new Uint8Array(m.bytes));
        return;
      case "cleared":
        logEvent(
          this.log,
          "lldp.error",
          { ifname: port?.nic.name, errno: errnoName(m.errno) },
          "cleared a pending socket error (link went down, or was down at start); still listening",
          "debug",
        );
        return;
      case "dropped":
        logEvent(this.log, "lldp.frame.malformed", { ifname: port?.nic.name, dropped: m.count }, "too many LLDP frames in one second: the rest were dropped unread", "warn");
        return;
      case "error":
        logEvent(this.log, "lldp.error", { ifname: port?.nic.name, errno: errnoName(m.errno), what: m.what }, "LLDP socket failed: this NIC is no longer read", "warn");
        return;
      default:
        return;
    }
  }

  private onFrame(port: Port, bytes: Uint8Array): void {
    const now = monotonic();
    let frame;
    try {
      frame = decodeLldpFrame(bytes);
    } catch (e) {
      if (!(e instanceof LldpDecodeError)) {
        // A bug in the decoder must not end the agent (this runs in a Worker message handler): say so and drop the frame.
        logEvent(
          this.log,
          "lldp.error",
          { ifname: port.nic.name, bytes: bytes.byteLength, error: (e as Error).message },
          "internal error decoding an LLDP frame: frame dropped",
          "error",
        );
        return;
      }
      if (!port.malformedLog.take(now)) return;
      const src = bytes.byteLength >= 12 ? Array.from(bytes.subarray(6, 12), (b) => b.toString(16).padStart(2, "0")).join(":") : "?";
      logEvent(
        this.log,
        "lldp.frame.malformed",
        { ifname: port.nic.name, src, reason: e.reason, offset: e.offset, bytes: bytes.byteLength, notLogged: port.malformedLog.skippedDue(now) },
        `skipped a malformed LLDP frame: ${e.message}`,
        "warn",
      );
      return;
    }
    // Our own frames (kernels before 4.20 ignore PACKET_IGNORE_OUTGOING) are not a neighbour.
    if (frame.src === port.nic.mac.toLowerCase()) return;
    this.apply(this.table.update(port.nic.name, frame.du, now), now);
  }

  /** Logs the table's changes (within each NIC's budget) and wakes the waiters. */
  private apply(changes: readonly TableChange[], now: number): void {
    for (const c of changes) if (this.portByName.get(c.neighbour.interface)?.neighbourLog.take(now) !== false) this.logChange(c);
    if (changes.length === 0) return;
    for (const w of [...this.waiters]) w();
    this.onChange?.();
  }

  private logChange(c: TableChange): void {
    const n = c.neighbour;
    const fields = {
      ifname: n.interface,
      switch: n.systemName,
      chassisId: n.chassisId,
      portId: n.portId,
      portIdSubtype: n.portIdSubtype,
      portDescription: n.portDescription,
      ttl: n.ttlSeconds,
      mgmt: n.managementAddresses,
    };
    if (c.kind === "new" || c.kind === "changed") {
      logEvent(
        this.log,
        "lldp.neighbour",
        { ...fields, change: c.kind },
        `${n.interface}: switch ${JSON.stringify(n.systemName)} port ${JSON.stringify(n.portDescription || n.portId)}`,
      );
      if (c.kind === "new" && !neighbourMac(n)) {
        const subtype = PORT_ID_SUBTYPE_NAMES[n.portIdSubtype] ?? `subtype ${n.portIdSubtype}`;
        logEvent(
          this.log,
          "lldp.port_id",
          fields,
          `${n.interface}: switch ${JSON.stringify(n.systemName)} sends port id ${JSON.stringify(n.portId)} (${subtype}) and chassis id ${JSON.stringify(n.chassisId)} (subtype ${n.chassisIdSubtype}): neither is a MAC address, which the apiserver requires for a neighbour's mac, so Register leaves this neighbour out (see docs/lldp.md)`,
          "warn",
        );
      }
    } else {
      logEvent(this.log, "lldp.neighbour.expired", { ...fields, why: c.kind }, `${n.interface}: switch ${JSON.stringify(n.systemName)} ${EXPIRED_WHY[c.kind]}`);
    }
  }

  private tick(): void {
    const now = monotonic();
    const expired = this.table.expire(now);
    if (expired.length > 0) this.apply(expired, now);
    this.logFloods(now);
    if (!this.announce || this.stopped) return;
    for (const p of this.ports) {
      if (now < p.nextSendAt) continue;
      const e = p.sock.send(p.frame);
      if (e === undefined) {
        if (p.sent === 0 || p.lastSendErrno !== undefined)
          logEvent(
            this.log,
            "lldp.announce",
            { ifname: p.nic.name, bytes: p.frame.byteLength, afterErrno: p.lastSendErrno === undefined ? undefined : errnoName(p.lastSendErrno) },
            "sending our LLDP frame (system name = machine UUID)",
          );
        p.sent++;
        p.lastSendErrno = undefined;
        p.nextSendAt = now + (p.sent < TX_FAST_INIT ? TX_FAST_MS : this.txIntervalMs);
      } else {
        // ENETDOWN until the link is up: expected at start, so debug; anything else once as a warning.
        if (e !== p.lastSendErrno)
          logEvent(this.log, "lldp.announce", { ifname: p.nic.name, errno: errnoName(e) }, "cannot send our LLDP frame yet; retrying every second", e === 100 ? "debug" : "warn");
        p.lastSendErrno = e;
        p.sent = 0;
        p.nextSendAt = now + TX_FAST_MS;
      }
    }
  }

  /** One line per NIC whose neighbour lines went over its budget in a window that has ended. */
  private logFloods(now: number): void {
    for (const p of this.ports) {
      const notLogged = p.neighbourLog.skippedDue(now);
      if (notLogged === 0) continue;
      const kept = this.table.snapshot().get(p.nic.name)?.length ?? 0;
      logEvent(
        this.log,
        "lldp.neighbour.flood",
        { ifname: p.nic.name, notLogged, kept, max: MAX_NEIGHBOURS_PER_INTERFACE },
        `${p.nic.name}: ${notLogged} neighbour changes not logged (more than ${NEIGHBOUR_LOG_BURST} in ${NEIGHBOUR_LOG_WINDOW_MS / 1000} s: a peer sending a new neighbour in each frame?); the NIC keeps ${kept} of at most ${MAX_NEIGHBOURS_PER_INTERFACE}`,
        "warn",
      );
    }
  }

  neighbours(): ReadonlyMap<string, readonly LldpNeighbour[]> {
    const now = monotonic();
    const expired = this.table.expire(now);
    if (expired.length > 0) this.apply(expired, now);
    return this.table.snapshot();
  }

  waitForSwitches(count: number, timeoutMs: number, signal?: AbortSignal): Promise<ReadonlyMap<string, readonly LldpNeighbour[]>> {
    const t0 = monotonic();
    logEvent(
      this.log,
      "lldp.wait",
      { switches: count, timeoutMs, interfaces: this.ports.map((p) => p.nic.name) },
      `waiting up to ${timeoutMs} ms for LLDP neighbours on ${count} distinct switches`,
    );
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (complete: boolean) => {
        this.waiters.delete(check);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const seen = this.neighbours();
        logEvent(this.log, "lldp.wait.done", { complete, switches: distinctSwitches(seen), wanted: count, ms: Math.round(monotonic() - t0) });
        resolve(seen);
      };
      const check = () => {
        if (this.stopped) return finish(false);
        if (distinctSwitches(this.neighbours()).length >= count) finish(true);
      };
      const onAbort = () => {
        this.waiters.delete(check);
        clearTimeout(timer);
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(check);
      timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
      check();
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopped = true;
      clearInterval(this.ticker);
      for (const w of [...this.waiters]) w();
      const worker = this.worker;
      if (worker) {
        Atomics.store(new Int32Array(this.stopFlag), 0, 1);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 500);
          worker.addEventListener("message", (e: MessageEvent<ReaderOut>) => {
            if (e.data.kind === "stopped") {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        worker.terminate();
      }
      for (const p of this.ports) p.sock.close();
    })();
    return this.closing;
  }
}

export function startLldp(opts: LldpOptions): LldpSession {
  return new Session(opts);
}
