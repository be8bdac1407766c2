/** The agent binary the Makefile makes, for the tests that run the compiled agent. */
import { join } from "node:path";

const REPO = join(import.meta.dir, "../..");

/**
 * dist/metal-hammer, made by the Makefile's own rule (its flags, its entry points and
 * workers): under `make test` (`build` ran first) it is up to date and nothing is
 * compiled; run alone, make compiles it only when it is missing or older than a source.
 * `-o node_modules/.package-lock.json`: never an `npm ci` from inside a test.
 */
export function madeBinary(): string {
  const r = Bun.spawnSync(["make", "-s", "-o", "node_modules/.package-lock.json", "dist/metal-hammer"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`make dist/metal-hammer failed (exit ${r.exitCode}): ${r.stderr.toString().trim()}`);
  return join(REPO, "dist/metal-hammer");
}
