import { describe, expect, test } from "bun:test";
import { decideStart, START_STAGES } from "../../src/agent/flow-start.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

describe("where run starts, decided once", () => {
  test("no --from and --from network: a fresh boot", () => {
    expect(decideStart(undefined)).toEqual({ kind: "fresh" });
    expect(decideStart("network")).toEqual({ kind: "fresh" });
  });

  test("--from boot: the stages up to the hand-off without the bring-up", () => {
    expect(decideStart("boot")).toEqual({ kind: "boot" });
  });

  test("--from register and --from wait resume at that stage", () => {
    expect(decideStart("register")).toEqual({ kind: "resume", at: "register" });
    expect(decideStart("wait")).toEqual({ kind: "resume", at: "wait" });
  });

  test("every start stage has a start; any other stage or word is a usage error (exit 2) naming the valid ones", () => {
    expect(START_STAGES.map((s) => decideStart(s).kind)).toEqual(["fresh", "boot", "resume", "resume"]);
    for (const bad of ["clock", "install", "wiat", "", "Wait"]) {
      const e = agentErrorOf(() => decideStart(bad));
      expect([e.code, e.exitCode]).toEqual(["usage", 2]);
      expect(e.message).toBe(
        `--from ${JSON.stringify(bad)}: expected one of network, boot, register, wait (register and wait resume from handoff.json and the token file in --run-dir)`,
      );
    }
  });
});
