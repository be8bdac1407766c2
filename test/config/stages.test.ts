import { describe, expect, test } from "bun:test";
import { configFromCmdline } from "../../src/config/config.ts";
import { STAGES } from "../../src/config/stages.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

const BOOT = "METAL_BOOT_URL=https://[2001:db8::10]/";
const ALL = "network, clock, boot, api, image, handoff, register, wipe, wait, layout, install, installed, kexec";

describe("METAL_DEBUG_HANG takes only a stage of the flow", () => {
  test("the stages are the fresh boot's, in its order", () => {
    expect(STAGES.join(", ")).toBe(ALL);
  });

  test("every stage is accepted as it is; absent is none", () => {
    for (const s of STAGES) expect(configFromCmdline(`${BOOT} METAL_DEBUG_HANG=${s}`).debugHang).toBe(s);
    expect(configFromCmdline(BOOT).debugHang).toBeUndefined();
  });

  test("a misspelt stage is a usage error (exit 2) naming the value and the valid stages", () => {
    const e = agentErrorOf(() => configFromCmdline(`${BOOT} METAL_DEBUG_HANG=wiat`));
    expect([e.code, e.exitCode, e.details.parameter]).toEqual(["usage", 2, "METAL_DEBUG_HANG"]);
    expect(e.message).toBe(`METAL_DEBUG_HANG="wiat": expected the name of a stage: one of ${ALL}`);
  });

  test("case, a bare flag and an empty value are refused too", () => {
    for (const [arg, shown] of [
      ["METAL_DEBUG_HANG=Wait", '"Wait"'],
      ["METAL_DEBUG_HANG", "(bare flag)"],
      ["METAL_DEBUG_HANG=", '""'],
    ] as const) {
      const e = agentErrorOf(() => configFromCmdline(`${BOOT} ${arg}`));
      expect(e.exitCode).toBe(2);
      expect(e.message).toBe(`METAL_DEBUG_HANG=${shown}: expected the name of a stage: one of ${ALL}`);
    }
  });
});
