/**
 * One lab lifecycle, the shape the direct lab, the chain and the fleet share:
 *
 *   rig (namespaces, taps, radvd) -> stand-ins (servers, switches, NTP, DNS, BMCs)
 *     -> machines (QEMU, or the agent in a namespace) -> collect -> clean-up
 *
 * Each step is a function from what the earlier steps made to a typed result; whatever a
 * step starts or creates it pushes on one stack of undo actions (a process by its PID, a
 * namespace, a file), and clean-up runs that stack last pushed first, every undo even when
 * one fails, once: on success, on a failed step, on a timeout, on SIGINT/SIGTERM. A driver
 * is a plan: which rig, which stand-ins, how many machines with what boot path, what to
 * wait for and what to collect (lab/direct/lab.ts runs one plan from start to end;
 * lab/chain/chain-lab.ts and lab/fleet/fleet.ts hold one open for a test to drive).
 */

/** One thing clean-up undoes: a process stopped by PID, a namespace deleted, a file removed. */
export interface Undo {
  readonly what: string;
  readonly undo: () => Promise<void> | void;
}

/** An undo that failed at clean-up (clean-up goes on with the rest). */
export interface UndoFailure {
  readonly what: string;
  readonly error: unknown;
}

/** The steps of the lifecycle, in the order they run. */
export type LabStep = "rig" | "standins" | "machines" | "collect";

export type Interrupt = "SIGINT" | "SIGTERM";

/** The exit code of a process ended by an interrupt (128 + the signal's number). */
export const interruptExit = (signal: Interrupt): number => (signal === "SIGINT" ? 130 : 143);

export class LabInterrupted extends Error {
  override readonly name = "LabInterrupted";
  constructor(readonly signal: Interrupt) {
    super(`interrupted by ${signal}; everything the lab started is stopped and removed`);
  }
}

export class Lifecycle {
  private readonly undos: Undo[] = [];
  private cleaning: Promise<readonly UndoFailure[]> | undefined;
  /** What the running step asked an interrupt to do first (stop QEMU and let the run unwind). */
  private readonly onInterrupt: (() => void)[] = [];
  private signalled: Interrupt | undefined;
  private removeHandlers: (() => void) | undefined;

  /** The interrupt that came, if any. */
  get interrupted(): Interrupt | undefined {
    return this.signalled;
  }

  /** Whether clean-up has started (nothing more may be pushed then). */
  get cleanedUp(): boolean {
    return this.cleaning !== undefined;
  }

  /** What clean-up must undo, run last pushed first. */
  push(what: string, undo: () => Promise<void> | void): void {
    if (this.cleaning) throw new Error(`lab lifecycle: ${what} pushed after clean-up started`);
    this.undos.push({ what, undo });
  }

  /** Runs one step; a step that throws leaves its own pushes on the stack, so clean-up undoes them too. */
  async step<T>(name: LabStep, run: () => Promise<T> | T): Promise<T> {
    if (this.signalled) throw new LabInterrupted(this.signalled);
    if (this.cleaning) throw new Error(`lab lifecycle: step ${name} after clean-up`);
    return await run();
  }

  /**
   * While `run` runs, an interrupt calls `stop` (QEMU stopped by its PID) instead of
   * cleaning up at once: the step ends, and the run unwinds through its clean-up.
   */
  async stoppable<T>(stop: () => void, run: () => Promise<T>): Promise<T> {
    this.onInterrupt.push(stop);
    try {
      return await run();
    } finally {
      this.onInterrupt.splice(this.onInterrupt.indexOf(stop), 1);
    }
  }

  /**
   * SIGINT/SIGTERM: a step running under stoppable() is stopped and the run unwinds
   * (the caller's clean-up); otherwise clean-up runs here and the process exits 130/143.
   * Removed at clean-up.
   */
  catchSignals(say: (line: string) => void = () => undefined): void {
    if (this.removeHandlers) return;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (this.signalled) return;
      this.signalled = sig as Interrupt;
      say(`${sig}: stopping`);
      const stops = [...this.onInterrupt];
      if (stops.length > 0) return stops.forEach((stop) => stop());
      void this.cleanUp().then(() => process.exit(interruptExit(sig as Interrupt)));
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    this.removeHandlers = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
  }

  /** Throws LabInterrupted when an interrupt came (after a stopped step ended). */
  checkInterrupt(): void {
    if (this.signalled) throw new LabInterrupted(this.signalled);
  }

  /**
   * Every undo, last pushed first, each awaited; one that throws is recorded and the rest
   * still run. Never throws; a second call waits for the first and does nothing more.
   */
  cleanUp(): Promise<readonly UndoFailure[]> {
    this.cleaning ??= (async () => {
      const failures: UndoFailure[] = [];
      for (const u of this.undos.splice(0).reverse()) {
        try {
          await u.undo();
        } catch (error) {
          failures.push({ what: u.what, error });
        }
      }
      this.removeHandlers?.();
      return failures;
    })();
    return this.cleaning;
  }
}

/**
 * A plan run from start to end: rig, stand-ins, machines, collect, each step's result the
 * next one's input; clean-up runs on every way out (the result returned, a step's error
 * rethrown as it was, an interrupt as LabInterrupted).
 */
export interface LabPlan<Rig, Standins, Machines, Result> {
  rig(life: Lifecycle): Promise<Rig> | Rig;
  standins(life: Lifecycle, rig: Rig): Promise<Standins> | Standins;
  machines(life: Lifecycle, rig: Rig, standins: Standins): Promise<Machines> | Machines;
  collect(rig: Rig, standins: Standins, machines: Machines): Promise<Result> | Result;
}

export async function runPlan<Rig, Standins, Machines, Result>(plan: LabPlan<Rig, Standins, Machines, Result>, life: Lifecycle = new Lifecycle()): Promise<Result> {
  try {
    const rig = await life.step("rig", () => plan.rig(life));
    const standins = await life.step("standins", () => plan.standins(life, rig));
    const machines = await life.step("machines", () => plan.machines(life, rig, standins));
    life.checkInterrupt();
    return await life.step("collect", () => plan.collect(rig, standins, machines));
  } finally {
    await life.cleanUp();
  }
}
