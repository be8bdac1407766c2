/**
 * The agent's hardware watchdog. No free-running timer: the flow calls `pet()` at each
 * stage and progress step, so a hung agent (a blocked event loop, a stage that never
 * returns) stops petting and the machine resets within the timeout. A wait that is
 * legitimately long (BootService/Wait, up to a day) runs under `hold(promise, boundMs)`,
 * which pets while the promise is pending but never past the wait's own bound: a wait
 * stuck beyond its bound resets the machine too. `close()` disarms it with the magic
 * character before reboot or kexec.
 */
import { errnoName } from "../../platform/sys/errno.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { WatchdogDevice } from "../../platform/sys/watchdog-device.ts";

export interface WatchdogStatus {
  readonly state: "armed" | "off" | "closed" | "error";
  readonly device?: string;
  readonly timeoutS?: number;
  readonly pets: number;
  /** Unix ms of the last successful ping. */
  readonly lastPetAt?: number;
  readonly reason?: string;
}

export interface WatchdogClock {
  now(): number;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realClock: WatchdogClock = { now: () => Date.now(), setInterval: (fn, ms) => setInterval(fn, ms), clearInterval: (h) => clearInterval(h as Timer) };

/** Pets closer together than this are skipped (the flow may call pet() in tight loops). */
export const MIN_PET_INTERVAL_MS = 1000;

export class Watchdog {
  readonly #dev: WatchdogDevice | undefined;
  readonly #log: Logger;
  readonly #clock: WatchdogClock;
  #status: WatchdogStatus;
  #lastPet = -Infinity;
  #pingFailed = false;
  /** METAL_DEBUG_HANG: no ping from now on, whatever asks for one (a running hold() too). */
  #abandoned = false;
  /** hold()'s ping period is a third of this: the driver's timeout, or when unknown the smaller of the requested one and 30 s. */
  #periodBaseS = 30;

  private constructor(dev: WatchdogDevice | undefined, status: WatchdogStatus, log: Logger, clock: WatchdogClock) {
    this.#dev = dev;
    this.#status = status;
    this.#log = log;
    this.#clock = clock;
  }

  /** A watchdog that does nothing (absent device, METAL_WATCHDOG=0); `reason` is shown in `status`. */
  static off(reason: string, log: Logger, clock: WatchdogClock = realClock): Watchdog {
    logEvent(log, "watchdog.off", { reason }, `no hardware watchdog: ${reason}`);
    return new Watchdog(undefined, { state: "off", pets: 0, reason }, log, clock);
  }

  /** Arms an opened device with `timeoutS` (a driver that refuses keeps its own default, logged). */
  static arm(dev: WatchdogDevice, path: string, timeoutS: number, log: Logger, clock: WatchdogClock = realClock): Watchdog {
    const r = dev.setTimeout(timeoutS);
    let actual: number | undefined = timeoutS;
    if (r < 0) {
      actual = undefined;
      logEvent(
        log,
        "watchdog.error",
        { device: path, op: "WDIOC_SETTIMEOUT", errno: errnoName(-r) },
        `${path}: cannot set the timeout to ${timeoutS} s (${errnoName(-r)}); the driver's default applies`,
        "warn",
      );
    } else actual = r;
    const w = new Watchdog(dev, { state: "armed", device: path, ...(actual !== undefined ? { timeoutS: actual } : {}), pets: 0 }, log, clock);
    w.#periodBaseS = actual ?? Math.min(timeoutS, 30);
    logEvent(
      log,
      "watchdog.open",
      { device: path, timeoutS: actual ?? null },
      `hardware watchdog ${path} armed (timeout ${actual === undefined ? "driver default" : `${actual} s`}); a hung agent resets the machine`,
    );
    w.pet();
    return w;
  }

  get status(): WatchdogStatus {
    return this.#status;
  }

  /**
   * No more pings from here on (METAL_DEBUG_HANG, before the agent blocks): the device
   * stays armed, so it resets the machine one timeout after the last ping.
   */
  abandon(): void {
    this.#abandoned = true;
  }

  /** One ping, at most one per second; never throws. */
  pet(): void {
    if (!this.#dev || this.#status.state !== "armed" || this.#abandoned) return;
    const now = this.#clock.now();
    if (now - this.#lastPet < MIN_PET_INTERVAL_MS) return;
    const e = this.#dev.ping();
    if (e !== 0) {
      if (!this.#pingFailed)
        logEvent(this.#log, "watchdog.error", { device: this.#status.device, op: "ping", errno: errnoName(e) }, `${this.#status.device}: ping failed (${errnoName(e)})`, "error");
      this.#pingFailed = true;
      return;
    }
    this.#pingFailed = false;
    this.#lastPet = now;
    this.#status = { ...this.#status, pets: this.#status.pets + 1, lastPetAt: now };
  }

  /**
   * Pets while `p` is pending, every third of the timeout, for at most `boundMs`; then it
   * stops petting (the wait's own bound has passed: if it still has not returned, the
   * agent is stuck and the watchdog resets the machine).
   */
  async hold<T>(p: Promise<T>, boundMs: number): Promise<T> {
    if (!this.#dev || this.#status.state !== "armed") return await p;
    const every = Math.max(MIN_PET_INTERVAL_MS, (this.#periodBaseS * 1000) / 3);
    const until = this.#clock.now() + boundMs;
    this.pet();
    const h = this.#clock.setInterval(() => {
      if (this.#clock.now() > until) this.#clock.clearInterval(h);
      else this.pet();
    }, every);
    try {
      return await p;
    } finally {
      this.#clock.clearInterval(h);
      this.pet();
    }
  }

  /** Disarms with the magic close (before reboot, kexec, or handing the machine to a shell). */
  close(why: string): void {
    if (!this.#dev || this.#status.state !== "armed") return;
    const e = this.#dev.magicClose();
    if (e !== 0) {
      this.#status = { ...this.#status, state: "error", reason: `magic close failed: ${errnoName(e)}` };
      logEvent(
        this.#log,
        "watchdog.error",
        { device: this.#status.device, op: "close", errno: errnoName(e) },
        `${this.#status.device}: magic close failed (${errnoName(e)}); the watchdog may still fire`,
        "error",
      );
      return;
    }
    this.#status = { ...this.#status, state: "closed", reason: why };
    logEvent(this.#log, "watchdog.close", { device: this.#status.device, why }, `hardware watchdog disarmed (${why})`);
  }
}
