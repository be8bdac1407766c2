/**
 * Stage "handoff": writes /run/metal/handoff.json (0600, atomic), then continues per
 * METAL_HANDOFF: exec:/path replaces the agent with the next stage (METAL_HANDOFF_FILE
 * in its environment); builtin goes on with the provisioning stages (register, wait,
 * install) that follow this one.
 */
import { buildHandoff } from "../handoff/build.ts";
import { checkExecutable, handoffEnv } from "../handoff/exec.ts";
import { writePrivateFile } from "../fs/private-file.ts";
import { logEvent } from "../log/logger.ts";
import { need } from "./need.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const handoffStage: Stage = {
  name: "handoff",
  describe: "write handoff.json and hand over to the next stage",
  async run(config, deps, state) {
    const boot = need(state, "boot", "handoff", "boot");
    const s = services(config, deps);
    if (config.handoff.kind === "exec") checkExecutable(config.handoff.path);
    const doc = buildHandoff(state, boot, new Date());
    await writePrivateFile(s.handoffFile, JSON.stringify(doc, null, 2) + "\n", "hand-off file");
    logEvent(deps.log, "handoff.write", { path: s.handoffFile, mode: "0600", next: config.handoff.kind === "exec" ? `exec:${config.handoff.path}` : "builtin" });
    if (config.handoff.kind === "builtin") return;
    logEvent(deps.log, "handoff.exec", { path: config.handoff.path, handoffFile: s.handoffFile });
    await s.http.close();
    // Queued output (the handoff.exec line above) must be written before execve replaces the process.
    await deps.log.flush();
    s.exec(config.handoff.path, [], handoffEnv(s.env, s.handoffFile));
  },
};
