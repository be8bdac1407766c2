/** Shared set-up for the namespace tests: skip reason, a lab per test, cleaned up even on failure. */
import { hasRadvd, isRoot, Lab } from "../../helpers/netns.ts";

export const SKIP = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd (apt-get install radvd)" : undefined;
if (SKIP) console.warn(`test/integration/net skipped: ${SKIP}`);

export async function withLab<T>(fn: (lab: Lab) => Promise<T>): Promise<T> {
  const lab = new Lab();
  try {
    return await fn(lab);
  } finally {
    lab.cleanup();
  }
}

export const PREFIX = "2001:db8:1::";
