/**
 * The agent's operations services in one object, built once at the composition root
 * (before the logger, whose write path feeds the log shipper) and handed to the flow:
 * the hardware watchdog, the clock sync (status and log shipper told of a step),
 * remote logging, the planned reboot's lines and the status file. Each method is what
 * one place in the flow calls:
 *
 *   const ops = new Operations({ secrets, statusPath: `${runDir}/status.json` }); // STATUS_FILE
 *   const log = createLogger({ ..., write: (line) => { io.err(line); ops.sink(line); } });
 *   ops.startWatchdog(config.watchdog, log);                  // agent start
 *   await ops.stage("network", log, config.debugHang);        // each stage start (pets, status, METAL_DEBUG_HANG)
 *   const clock = await ops.syncClock(config.ntpServers, log); // after the network, before the first TLS
 *   ops.startRemoteLog(bootConfig.logging, { uuid, ca, log }); // once metal-boot's config is known
 *   const plan = ops.planReboot(config, log);                 // wait stage: min(METAL_WAIT_TIMEOUT, planned reboot)
 *   await ops.hold(waitPromise, plan.boundMs);                // pets through the long wait, not past its bound
 *   ops.rebootDue({ at, reason }, log);                       // the wait's outcome: ended by the planned reboot
 *   await ops.beforeReboot("kexec", log);                     // flush logs, close the watchdog
 *
 * It keeps no fact of the flow: what one stage finds and a later one needs (the clock
 * state, the planned reboot, metal-boot's CA) is in that stage's typed result. Nothing
 * here throws into the flow: every part reports into its log line and the status file
 * instead.
 */
import { eventTypeName } from "../../clients/api/event-reporter.ts";
import type { TokenInfo } from "../../clients/metal-boot/token.ts";
import type { Config } from "../../config/config.ts";
import { MachineProvisioningEventType } from "../../gen/metalstack/api/v2/machine_pb.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { SecretSet } from "../../platform/log/redact.ts";
import { parseNtpServer, type NtpServer } from "../../config/ntp-servers.ts";
import { syncClock, type ClockDeps, type ClockState } from "../clock/sync.ts";
import { planReboot, waitBound, type PlannedReboot } from "../reboot/planned.ts";
import { prepareForReboot } from "../reboot/prepare.ts";
import type { Logging } from "../remote-log/remote-log-config.ts";
import { LogShipper } from "../remote-log/shipper.ts";
import { logShipperChanges, startRemoteLog, type RemoteLogDeps } from "../remote-log/start-remote-log.ts";
import type { WipeReport } from "../../machine/disk/wipe-run.ts";
import { clockSection, remoteLogSection, watchdogSection, wipeSection } from "../status/sections.ts";
import { StatusWriter, type StatusDoc } from "../status/status-file.ts";
import type { StageName } from "../../config/stages.ts";
import type { WatchdogSetting } from "../../config/watchdog-setting.ts";
import { startWatchdog, type WatchdogDeps } from "../watchdog/start-watchdog.ts";
import { Watchdog } from "../watchdog/watchdog.ts";
import { silentLogger } from "../../platform/log/logger.ts";
import { hangForever } from "./hang.ts";

/** The provisioning event upstream sends for it (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto:669). */
export const PLANNED_REBOOT_EVENT = eventTypeName(MachineProvisioningEventType.PLANNED_REBOOT);

/** METAL_DEBUG_HANG: how long the last lines may take to the console and Loki before the agent blocks. */
export const HANG_FLUSH_MS = 2000;

/** The wait's bound and what ends it there; `reboot`: the planned reboot (undefined: METAL_PLANNED_REBOOT=off). */
export type WaitPlan =
  | { readonly boundMs: number; readonly endsBy: "wait_timeout"; readonly reboot: PlannedReboot | undefined }
  | { readonly boundMs: number; readonly endsBy: "planned_reboot"; readonly reboot: PlannedReboot };

export interface OperationsOptions {
  readonly secrets: SecretSet;
  /** Required, so no test writes the host's /run/metal by default: `${runDir}/status.json` (STATUS_FILE in the agent). */
  readonly statusPath: string;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly shipper?: LogShipper;
  /** What METAL_DEBUG_HANG does (tests pass a recorder). */
  readonly hang?: () => void;
  /** METAL_DEBUG_HANG's bound on flushing the last lines (default HANG_FLUSH_MS). */
  readonly hangFlushMs?: number;
}

export class Operations {
  readonly shipper: LogShipper;
  readonly status: StatusWriter;
  #uplinks: (() => NonNullable<StatusDoc["uplinks"]>) | undefined;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #hang: () => void;
  readonly #hangFlushMs: number;
  #watchdog: Watchdog = Watchdog.off("not started", silentLogger());
  #log: Logger = silentLogger();
  /** METAL_DEBUG_HANG (configuration, set once at agent start). */

  constructor(opts: OperationsOptions) {
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
    this.#hang = opts.hang ?? hangForever;
    this.#hangFlushMs = opts.hangFlushMs ?? HANG_FLUSH_MS;
    this.shipper = opts.shipper ?? new LogShipper({ now: this.#now, onChange: (c) => (logShipperChanges(() => this.#log)(c), this.#updateShipping()) });
    this.status = new StatusWriter(opts.statusPath, opts.secrets, this.#now);
  }

  /** The logger's sink (attach to its write path: the line arrives already scrubbed). */
  readonly sink = (line: string): void => this.shipper.sink(line);

  get watchdog(): Watchdog {
    return this.#watchdog;
  }

  /** At agent start: arms /dev/watchdog unless METAL_WATCHDOG=0 or absent. */
  startWatchdog(setting: WatchdogSetting, log: Logger, deps: Partial<WatchdogDeps> = {}): void {
    this.#log = log;
    this.#watchdog = startWatchdog(setting, { log, ...deps });
    this.status.update({ watchdog: watchdogSection(this.#watchdog.status) });
  }

  /** After the wipe (done or failed): each disk's record goes into status.json. */
  recordWipe(report: WipeReport): void {
    this.status.update({ wipe: wipeSection(report) });
  }

  /**
   * At the start of every stage: pets the watchdog, records the stage. The flow awaits
   * it: only when `hangAt` (METAL_DEBUG_HANG, Config.debugHang) names this stage does it
   * return a promise, one that does not settle (the agent blocks in it; with a test's
   * `hang` recorder it resolves).
   */
  stage(name: StageName, log: Logger = this.#log, hangAt?: StageName): void | Promise<void> {
    this.#watchdog.pet();
    this.status.update({ stage: name, watchdog: watchdogSection(this.#watchdog.status), remoteLog: remoteLogSection(this.shipper.stats) });
    if (hangAt === name) return this.#debugHang(name, log);
  }

  /**
   * METAL_DEBUG_HANG: the pings stop at once (a hold() still running too), the line
   * saying so reaches the console and Loki (log output is asynchronous: a blocked event
   * loop would keep it queued; bounded by HANG_FLUSH_MS), then the event loop blocks.
   */
  async #debugHang(name: StageName, log: Logger): Promise<void> {
    this.#watchdog.abandon();
    const wd = this.#watchdog.status;
    logEvent(
      log,
      "agent.stage",
      { stage: name, debugHang: true },
      `METAL_DEBUG_HANG=${name}: the agent hangs here on purpose; the hardware watchdog (${wd.state}, ${wd.timeoutS === undefined ? "the driver's default timeout" : `timeout ${wd.timeoutS} s`}) must reset the machine`,
      "warn",
    );
    this.status.flush();
    const shipping = this.shipper.stats.state !== "off" && this.shipper.stats.state !== "buffering";
    let timer: Timer | undefined;
    await Promise.race([
      Promise.all([log.flush(), shipping ? this.shipper.flush(this.#hangFlushMs) : undefined]),
      new Promise((resolve) => (timer = setTimeout(resolve, this.#hangFlushMs))),
    ]);
    clearTimeout(timer);
    this.#hang();
  }

  /** Inside progress loops: a ping (rate-limited). */
  pet(): void {
    this.#watchdog.pet();
  }

  /** A long wait: pets while `p` is pending, never past `boundMs`. */
  async hold<T>(p: Promise<T>, boundMs: number): Promise<T> {
    return await this.#watchdog.hold(p, boundMs);
  }

  /** After the network stage and before the first TLS connection: the clock stage's result (status.json and the log shipper are told). Never throws. */
  async syncClock(servers: readonly NtpServer[], log: Logger, deps: Partial<ClockDeps> = {}): Promise<ClockState> {
    this.#watchdog.pet();
    const st = await syncClock(servers, { log, ...deps });
    if (st.decision === "step" && st.offsetMs !== undefined) this.shipper.clockStepped(st.offsetMs);
    this.#watchdog.pet();
    this.status.update({ clock: clockSection(st) });
    return st;
  }

  /**
   * A later re-sync from the config's `ntp_servers` (pixie's MetalConfig), e.g. after
   * metal-boot's answer when METAL_NTP_SERVERS gave no time, or during the long wait.
   * Entries that are neither addresses nor names are skipped with a warning.
   */
  async resyncFromConfig(ntpServers: readonly string[], log: Logger, deps: Partial<ClockDeps> = {}): Promise<ClockState> {
    const servers: NtpServer[] = [];
    for (const name of ntpServers) {
      const s = parseNtpServer(name);
      if (s) servers.push(s);
      else logEvent(log, "clock.reject", { server: name, reason: "config" }, `config ntp_servers: ${JSON.stringify(name)} is not an address or host name; skipped`, "warn");
    }
    return await this.syncClock(servers, log, deps);
  }

  /** Once the config from metal-boot is known: ship to its Loki endpoint or stop buffering. */
  startRemoteLog(logging: Logging | undefined, deps: Omit<RemoteLogDeps, "secrets"> & { readonly secrets: SecretSet }): void {
    startRemoteLog(this.shipper, logging, deps);
    this.#updateShipping();
  }

  /** The machine token's expiry (never the token) in status.json: at boot (renewals 0) and after each renewal. */
  tokenKnown(info: TokenInfo, renewals: number): void {
    this.status.update({
      token: { kind: info.kind, ...(info.expiresAt ? { expiresAt: info.expiresAt } : {}), renewals, ...(renewals > 0 ? { renewedAt: new Date(this.#now()).toISOString() } : {}) },
    });
  }

  /**
   * At the start of the wait for an allocation: the planned reboot's deadline (logged,
   * and in status.json) and the wait's bound, the smaller of METAL_WAIT_TIMEOUT and the
   * time left. The wait carries the plan in its outcome; nothing is kept here.
   */
  planReboot(config: Pick<Config, "plannedReboot" | "waitTimeoutMs">, log: Logger): WaitPlan {
    const now = this.#now();
    const reboot = planReboot(now, config.plannedReboot, this.#random);
    if (reboot) {
      logEvent(
        log,
        "reboot.planned",
        { at: reboot.at, boundMs: reboot.boundMs, jitterMs: reboot.jitterMs },
        `planned reboot at ${reboot.at} (${reboot.setting}) unless an allocation comes first`,
      );
      this.status.update({ plannedReboot: { at: reboot.at } });
    }
    const b = waitBound(now, config.waitTimeoutMs, reboot?.atMs);
    return b.endsBy === "planned_reboot" && reboot ? { boundMs: b.boundMs, endsBy: "planned_reboot", reboot } : { boundMs: b.boundMs, endsBy: "wait_timeout", reboot };
  }

  /**
   * The wait ended by the planned reboot: one line with the reason and the time it was
   * planned for; the flow then calls beforeReboot("planned reboot"), which ships it to
   * Loki (when configured) before the reboot. Upstream metal-hammer also emits the
   * provisioning event PLANNED_REBOOT (metal-stack/metal-hammer@ec148e3 cmd/root.go:71-72); the agent
   * cannot: EventService/Send needs INFRA_ROLE_EDITOR
   * (metal-stack/api@e6201fcb proto/metalstack/infra/v2/event.proto:11-12), the machine token
   * has MACHINE_ROLE_EDITOR only. So the line says so (`sent: false`).
   */
  rebootDue(reboot: Pick<PlannedReboot, "at" | "reason">, log: Logger): void {
    const { at, reason } = reboot;
    logEvent(
      log,
      "reboot.planned",
      { at, due: true, reason, provisioningEvent: PLANNED_REBOOT_EVENT, sent: false },
      `planned reboot due (planned for ${at}): ${reason}; not sent as ${PLANNED_REBOOT_EVENT} (EventService/Send is INFRA_ROLE_EDITOR only)`,
    );
  }

  /** Before reboot, poweroff or kexec: the last lines flushed (bounded), then the watchdog closed. */
  async beforeReboot(why: string, log: Logger, flushMs?: number): Promise<void> {
    await prepareForReboot(why, { log, shipper: this.shipper, watchdog: this.#watchdog, ...(flushMs !== undefined ? { flushMs } : {}) });
    this.status.update({ watchdog: watchdogSection(this.#watchdog.status), remoteLog: remoteLogSection(this.shipper.stats) });
    this.status.flush();
  }

  /** Where status.json's uplinks come from (compose: the uplink table and the HTTP client's connector); shown from their first change. */
  trackUplinks(view: () => NonNullable<StatusDoc["uplinks"]>): void {
    this.#uplinks = view;
  }

  /** An uplink was added or dropped, or a connection was raced over them: status.json again (at most once a second). */
  refreshUplinks(): void {
    if (this.#uplinks) this.status.update({ uplinks: this.#uplinks() });
  }

  #updateShipping(): void {
    this.status.update({ remoteLog: remoteLogSection(this.shipper.stats) });
  }
}
