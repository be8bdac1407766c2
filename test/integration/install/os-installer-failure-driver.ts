/**
 * Runs the installer runner on a prepared root, inside the private mount namespace the
 * test gives it (`unshare --mount --propagation private`), with the real mounts, PID
 * namespace and chroot:
 *   bun os-installer-failure-driver.ts <root> <timeoutMs> <console password>
 * The password is registered as a secret, as installOs does. stdout: the agent's JSON log
 * lines, then one `RESULT {...}` line with the error as the agent would report it (unscrubbed
 * here: the agent's own scrubbing is what the test checks).
 */
import { readFileSync } from "node:fs";
import { AgentError } from "../../../src/platform/errors.ts";
import { runInstaller } from "../../../src/install/installer.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

const [root, timeout, password] = process.argv.slice(2) as [string, string, string];
const secrets = new SecretSet();
secrets.add(password);
const log = createLogger({ level: "info", format: "json", write: (l) => process.stdout.write(l), secrets });
let result: Record<string, unknown>;
try {
  const out = await runInstaller({ root, log, scrub: (t) => secrets.scrub(t), timeoutMs: Number(timeout), uefi: false });
  result = { ok: true, binary: out.binary };
} catch (e) {
  const err = e as AgentError;
  result = { ok: false, code: err.code, exitCode: err.exitCode, message: err.message, details: err.details };
}
const left = readFileSync("/proc/self/mountinfo", "utf8")
  .split("\n")
  .filter((l) => l.split(" ")[4]?.startsWith(root + "/"));
process.stdout.write(`RESULT ${JSON.stringify({ ...result, mountsLeft: left.length })}\n`);
