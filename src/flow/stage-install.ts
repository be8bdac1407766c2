/**
 * Stage "install" (built-in flow): the image installation, not built yet. The flow
 * ends here with `not_built` naming the step, once an allocation has arrived.
 */
import { AgentError } from "../errors.ts";
import { builtinOnly } from "./api-client.ts";
import { need } from "./need.ts";
import type { Stage } from "./stage.ts";

export const installStage: Stage = {
  name: "install",
  describe: "install the allocated image (not built yet)",
  when: builtinOnly,
  async run(_config, _deps, state) {
    const boot = need(state, "boot", "install", "boot");
    need(state, "allocation", "install", "wait");
    throw new AgentError("not_built", `built-in provisioning flow: ${boot.uuid} is allocated, but the next step "install image" is not built yet (use METAL_HANDOFF=exec:/path for another next stage)`, { uuid: boot.uuid, step: "install image" });
  },
};
