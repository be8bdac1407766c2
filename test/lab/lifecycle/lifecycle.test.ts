/**
 * The lab lifecycle with fake steps: clean-up undoes what every step pushed, last pushed
 * first, on success, on a step's failure (the error is the step's own), on an undo that
 * fails, and on an interrupt; and only once.
 */
import { describe, expect, test } from "bun:test";
import { LabInterrupted, Lifecycle, runPlan, type LabPlan } from "../../../lab/lifecycle/lifecycle.ts";

/** A plan whose steps log what they do and push an undo each; `failAt` throws in that step after its push. */
function fakePlan(log: string[], failAt?: "rig" | "standins" | "machines" | "collect"): LabPlan<string, string, string, string> {
  const step = (life: Lifecycle, name: string, out: string): string => {
    log.push(`do ${name}`);
    life.push(name, () => void log.push(`undo ${name}`));
    if (failAt === name) throw new Error(`${name} failed`);
    return out;
  };
  return {
    rig: (life) => step(life, "rig", "ns"),
    standins: (life, rig) => step(life, "standins", `${rig}+servers`),
    machines: async (life, _rig, standins) => {
      await Bun.sleep(1);
      return step(life, "machines", `${standins}+qemu`);
    },
    collect: (rig, standins, machines) => {
      log.push("do collect");
      if (failAt === "collect") throw new Error("collect failed");
      return `${rig}|${standins}|${machines}`;
    },
  };
}

describe("the lab lifecycle", () => {
  test("on success each step gets the earlier results, and clean-up undoes every step in reverse after collect", async () => {
    const log: string[] = [];
    expect(await runPlan(fakePlan(log))).toBe("ns|ns+servers|ns+servers+qemu");
    expect(log).toEqual(["do rig", "do standins", "do machines", "do collect", "undo machines", "undo standins", "undo rig"]);
  });

  test("a step that throws: every earlier step's undo (and its own) ran, in reverse, later steps never ran, and the error is the step's", async () => {
    const log: string[] = [];
    const err = await runPlan(fakePlan(log, "machines")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe("machines failed");
    expect(log).toEqual(["do rig", "do standins", "do machines", "undo machines", "undo standins", "undo rig"]);
  });

  test("collect that throws: the error is collect's, everything is still undone", async () => {
    const log: string[] = [];
    await expect(runPlan(fakePlan(log, "collect"))).rejects.toThrow("collect failed");
    expect(log.slice(-3)).toEqual(["undo machines", "undo standins", "undo rig"]);
  });

  test("an undo that throws does not stop the others; clean-up reports it and never throws", async () => {
    const life = new Lifecycle();
    const log: string[] = [];
    life.push("namespace", () => void log.push("namespace"));
    life.push("radvd", () => {
      throw new Error("no such process");
    });
    life.push("qemu", async () => void log.push("qemu"));
    const failures = await life.cleanUp();
    expect(log).toEqual(["qemu", "namespace"]);
    expect(failures.map((f) => [f.what, (f.error as Error).message])).toEqual([["radvd", "no such process"]]);
  });

  test("clean-up runs once: a second call (a signal racing the finally) undoes nothing again, and nothing may be pushed after", async () => {
    const life = new Lifecycle();
    let n = 0;
    life.push("namespace", () => void n++);
    await Promise.all([life.cleanUp(), life.cleanUp()]);
    await life.cleanUp();
    expect(n).toBe(1);
    expect(() => life.push("late", () => undefined)).toThrow("late pushed after clean-up started");
  });

  test("an interrupt while QEMU runs stops it, the run unwinds through clean-up and ends as LabInterrupted", async () => {
    const listeners = process.listenerCount("SIGINT");
    const life = new Lifecycle();
    life.catchSignals();
    const log: string[] = [];
    const plan: LabPlan<null, null, string, string> = {
      rig: (l) => {
        l.push("rig", () => void log.push("undo rig"));
        return null;
      },
      standins: () => null,
      machines: (l) =>
        l.stoppable(
          () => log.push("stop qemu"),
          async () => {
            process.emit("SIGINT", "SIGINT");
            return "ended";
          },
        ),
      collect: () => "collected",
    };
    const err = await runPlan(plan, life).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabInterrupted);
    expect((err as LabInterrupted).signal).toBe("SIGINT");
    expect(log).toEqual(["stop qemu", "undo rig"]);
    // The handlers are gone with the clean-up: a later Ctrl-C is no longer the lab's.
    expect(process.listenerCount("SIGINT")).toBe(listeners);
  });
});
