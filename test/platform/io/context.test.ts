import { describe, expect, test } from "bun:test";
import { logEvent } from "../../../src/platform/log/logger.ts";
import { captureContext } from "../../helpers/capture.ts";

/** The context's logger writes to stderr (not a terminal in captureContext). */
function firstLine(env: Record<string, string>, format?: "auto" | "json" | "text"): string {
  const c = captureContext({}, env);
  logEvent(c.ctx.logger("info", format), "agent.done", { stageTimesMs: {} }, "done");
  return c.err();
}

describe("the log format", () => {
  test("auto: JSON when stderr is no terminal", () => {
    expect(JSON.parse(firstLine({}))).toMatchObject({ event: "agent.done", msg: "done" });
    expect(JSON.parse(firstLine({}, "auto"))).toMatchObject({ event: "agent.done" });
  });

  test("METAL_LOG_FORMAT in the environment (commands run by hand) picks json or text", () => {
    expect(firstLine({ METAL_LOG_FORMAT: "text" })).toMatch(/^\S* ?INFO  agent\.done done stageTimesMs=\{\}\n$/);
    expect(JSON.parse(firstLine({ METAL_LOG_FORMAT: "json" }))).toMatchObject({ event: "agent.done" });
    expect(JSON.parse(firstLine({ METAL_LOG_FORMAT: "xml" }))).toMatchObject({ event: "agent.done" });
  });

  test("the parsed configuration's format (run, PID 1) wins over the environment", () => {
    expect(firstLine({ METAL_LOG_FORMAT: "json" }, "text")).toContain("INFO  agent.done done");
    expect(JSON.parse(firstLine({ METAL_LOG_FORMAT: "text" }, "json"))).toMatchObject({ event: "agent.done" });
  });
});
