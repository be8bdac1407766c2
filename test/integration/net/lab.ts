/** Shared set-up for the namespace tests: skip reason, a lab per test, cleaned up even on failure. */
import { join } from "node:path";
import { eui64, hasRadvd, isRoot, Lab, nsx, type Link } from "../../helpers/netns.ts";
import { runAgent } from "./agent.ts";

export const SKIP = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd (apt-get install radvd)" : undefined;
if (SKIP) console.warn(`test/integration/net skipped: ${SKIP}`);

export async function withLab<T>(fn: (lab: Lab) => Promise<T>): Promise<T> {
  const lab = new Lab();
  try {
    return await fn(lab);
  } finally {
    await lab.cleanup();
  }
}

/** A lab with one link and radvd on it, from a fixture of test/fixtures/radvd/. */
export function withLink<T>(fixture: string, fn: (lab: Lab, link: Link) => Promise<T>): Promise<T> {
  return withLab(async (lab) => {
    const link = lab.addLink();
    await lab.radvd(link, fixture);
    return await fn(lab, link);
  });
}

export const PREFIX = "2001:db8:1::";

/** `net up` for one link with resolv.conf in the lab's temp dir, plus extra flags. */
export function netUp(lab: Lab, link: Link, ...extra: string[]) {
  return runAgent(lab, ["up", "--interfaces", link.agentIf, "--resolv-conf", join(lab.dir, "resolv.conf"), ...extra]);
}

/** The router side takes the address the agent will form (EUI-64 in PREFIX); returns it. */
export function holdAgentAddressOnRouter(link: Link): string {
  const dup = eui64(PREFIX, link.mac);
  nsx(link.routerNs, "ip", "-6", "addr", "add", `${dup}/64`, "dev", link.routerIf, "nodad");
  return dup;
}
