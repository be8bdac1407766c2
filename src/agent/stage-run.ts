/**
 * One run of the flow's stages: each stage starts with Operations.stage (pets the
 * watchdog, records the stage in status.json and the log), is held by the watchdog for
 * its bound, and its end time is kept for agent.done. The clock the last check left is
 * kept here too: a TLS validity error later is explained by it (ops/clock/tls-hint.ts).
 */
import type { ClockState } from "../ops/clock/sync.ts";
import type { Config } from "../config/config.ts";
import type { StageName } from "../config/stages.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

/**
 * How long the watchdog is petted through a stage that has no bound of its own below
 * the watchdog's timeout (each stage's own bounds are shorter; a stage stuck longer
 * lets the watchdog reset the machine). Wait and install hold it themselves.
 */
export const STAGE_HOLD_MS = 15 * 60_000;
/** Building the layout on many or large disks (mkfs, discard) takes longer; also the wipe's hold when its own bound cannot be computed. */
export const DISK_HOLD_MS = 2 * 3600_000;

export class StageRun {
  readonly #t0 = performance.now();
  readonly #stagesMs: Partial<Record<StageName, number>> = {};
  /** What a TLS validity error names: the clock as the last check of this run left it. */
  clock: ClockState | undefined;

  constructor(
    readonly config: Pick<Config, "debugHang">,
    readonly s: Pick<Services, "log" | "ops">,
  ) {}

  async stage<T>(name: StageName, describe: string, fn: () => Promise<T>, holdMs = STAGE_HOLD_MS): Promise<T> {
    logEvent(this.s.log, "agent.stage", { stage: name }, describe);
    await this.s.ops.stage(name, this.s.log, this.config.debugHang);
    const r = await this.s.ops.hold(fn(), holdMs);
    this.#stagesMs[name] = Math.round(performance.now() - this.#t0);
    return r;
  }

  /** Each stage's end, in ms since the run began (handoff.json carries them). */
  get stagesMs(): Partial<Record<StageName, number>> {
    return this.#stagesMs;
  }

  done(): void {
    logEvent(this.s.log, "agent.done", { stageTimesMs: this.#stagesMs });
  }
}
