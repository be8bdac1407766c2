import { AgentError } from "../../src/platform/errors.ts";

/** Runs `fn`, which must throw an AgentError, and returns it (anything else fails the test). */
export function agentErrorOf(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AgentError) return e;
    throw e;
  }
  throw new Error("expected an AgentError, but nothing was thrown");
}
