/**
 * Stage "handoff": writes /run/metal/handoff.json (0600, atomic), then continues per
 * METAL_HANDOFF: exec:/path replaces the agent with the next stage (METAL_HANDOFF_FILE
 * in its environment); builtin returns and the provisioning stages follow.
 */
import type { Config } from "../config/config.ts";
import { writePrivateFile } from "../platform/fs/private-file.ts";
import { buildHandoff, type HandoffInput } from "./handoff/handoff-build.ts";
import { encodeHandoff } from "./handoff/document.ts";
import { checkExecutable, handoffEnv } from "./handoff/exec.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

/** What the `handoff` stage uses of the services (a test fakes only this). */
export type HandoffServices = Pick<Services, "env" | "exec" | "handoffFile" | "http" | "log" | "now" | "ops">;

export async function handoff(config: Pick<Config, "handoff">, input: HandoffInput, s: HandoffServices): Promise<void> {
  if (config.handoff.kind === "exec") checkExecutable(config.handoff.path);
  const doc = buildHandoff(input, s.now());
  await writePrivateFile(s.handoffFile, encodeHandoff(doc), "hand-off file");
  logEvent(s.log, "handoff.write", { path: s.handoffFile, mode: "0600", next: config.handoff.kind === "exec" ? `exec:${config.handoff.path}` : "builtin" });
  if (config.handoff.kind === "builtin") return;
  logEvent(s.log, "handoff.exec", { path: config.handoff.path, handoffFile: s.handoffFile });
  await s.http.close();
  await s.ops.beforeReboot(`exec ${config.handoff.path}`, s.log);
  // Queued output (the handoff.exec line above) must be written before execve replaces the process.
  await s.log.flush();
  s.exec(config.handoff.path, [], handoffEnv(s.env, s.handoffFile));
}
