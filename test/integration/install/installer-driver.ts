/**
 * Runs the installer steps as the agent will, inside the private mount namespace the
 * test gives it (`unshare --mount --propagation private`), so the bind mounts never
 * reach the host's mount table:
 *   bun installer-driver.ts <image.tar.lz4> <root> <hostname> <timeoutMs>
 * Unpacks the image, writes the contract with a fresh console password, runs the
 * installer. stdout: the agent's JSON log lines, then one `RESULT {...}` line.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { AgentError } from "../../../src/errors.ts";
import { contractFiles } from "../../../src/install/contract.ts";
import { runInstaller } from "../../../src/install/installer.ts";
import { generateConsolePassword } from "../../../src/install/password.ts";
import { writeContract } from "../../../src/install/write-contract.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { SecretSet } from "../../../src/log/redact.ts";

const [image, root, hostname, timeout] = process.argv.slice(2) as [string, string, string, string];
const secrets = new SecretSet();
const log = createLogger({ level: "info", format: "json", write: (l) => process.stdout.write(l), secrets });
const untar = spawnSync("tar", ["-x", "-f", image, "-C", root, "-I", "lz4", "--numeric-owner", "--xattrs", "--xattrs-include=*"]);
if (untar.status !== 0) throw new Error(`untar: ${untar.stderr}`);
const password = generateConsolePassword(secrets);
const files = contractFiles({
  machineId: "00000000-0000-0000-0000-00000000c0de",
  nics: [{ mac: "52:54:00:00:00:01", name: "eth0", identifier: "eth0", neighbors: [{ mac: "aa:bb:cc:00:00:01", name: "swp1", identifier: "swp1", hostname: "leaf01", neighbors: [] }] }],
  password,
  console: "ttyS0",
  raidEnabled: false,
  rootUuid: "8f3c0000-1111-2222-3333-444455556666",
  allocation: { hostname, allocationType: "MACHINE_ALLOCATION_TYPE_MACHINE" },
  timestamp: new Date().toISOString(),
});
let result: Record<string, unknown>;
try {
  await writeContract(root, files, log);
  const r = await runInstaller({ root, log, timeoutMs: Number(timeout), scrub: (t) => secrets.scrub(t) });
  result = { ok: true, ...r };
} catch (e) {
  const err = e as AgentError;
  result = { ok: false, code: err.code, exitCode: err.exitCode, message: secrets.scrub(err.message) };
}
const left = readFileSync("/proc/self/mountinfo", "utf8").split("\n").filter((l) => l.split(" ")[4]?.startsWith(root + "/"));
process.stdout.write(`RESULT ${JSON.stringify({ ...result, mountsLeft: left.length, password })}\n`);
