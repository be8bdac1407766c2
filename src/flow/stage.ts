import type { Config } from "../config/config.ts";
import { AgentError } from "../errors.ts";
import type { Logger } from "../log/logger.ts";
import type { SecretSet } from "../log/redact.ts";
import type { Services } from "./services.ts";
import type { FlowState } from "./state.ts";

export interface FlowDeps {
  readonly log: Logger;
  readonly secrets: SecretSet;
  /** I/O for the stages after bring-up (flow/services.ts); defaults are the real ones. */
  readonly services?: Partial<Services>;
}

export interface Stage {
  readonly name: string;
  readonly describe: string;
  /** Runs only when this holds (default: always); e.g. the built-in provisioning stages only with METAL_HANDOFF=builtin. */
  readonly when?: (config: Config) => boolean;
  run(config: Config, deps: FlowDeps, state: FlowState): Promise<void>;
}

export const notBuilt = (name: string, describe: string): Stage => ({
  name,
  describe,
  run: async () => {
    throw new AgentError("not_built", `stage "${name}" (${describe}) is not built yet`, { stage: name });
  },
});
