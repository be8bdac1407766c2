/**
 * A suite's prerequisites (root, a kernel, a built binary): registers one test that
 * names what is missing, warns outside CI and fails under CI=true, so a skip always
 * says why and never passes silently in CI. Returns whether everything is there.
 */
import { test } from "bun:test";

export function prerequisites(suite: string, missing: readonly (string | undefined | false)[]): boolean {
  const gone = missing.filter((m): m is string => typeof m === "string" && m !== "");
  test(`prerequisites of ${suite}${gone.length ? ` (missing: ${gone.join(", ")})` : ""}`, () => {
    if (gone.length > 0 && process.env.CI === "true") throw new Error(`${suite}: missing under CI: ${gone.join(", ")}`);
    if (gone.length > 0) console.warn(`${suite} skipped: missing ${gone.join(", ")}`);
  });
  return gone.length === 0;
}
