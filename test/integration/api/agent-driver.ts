/**
 * A second composition root for root tests: the real CLI, with RA DNS written to
 * RESOLV_CONF (a test file, never the host's /etc/resolv.conf). With FAKE_LLDP (a JSON
 * array of LldpNeighbour) the LLDP session is a fake that reports those neighbours at
 * once (tests that need Register accepted without LLDP peers); without it the real
 * receiver (src/network/lldp/session.ts) runs on the selected NICs, as in the agent, against
 * the test's lldpd switches. The disks are never touched: the wipe is a no-op and a
 * layout is refused before anything is written (the host's disks are not the
 * machine's; the real stages would refuse on a host anyway, src/machine/disk/guard.ts), and
 * neither is the host's BMC (never read or written). With FAKE_TARGET (a directory) the
 * layout is that directory instead and the install streams the allocation's image into it
 * (the real download, Range resume and checksum), then stops with exit 54 `installer`
 * before any installer, boot order or kexec runs (the dual-homed suite's cut download).
 *   ip netns exec NS bun test/integration/api/agent-driver.ts run ...
 */
import { createContext, processIo } from "../../../src/platform/io/context.ts";
import { runCli } from "../../../src/cli/program.ts";
import { registrarsFor } from "../../../src/cli/commands.ts";
import { registerRun } from "../../../src/cli/run-command.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import type { BmcStages, DiskStages } from "../../../src/agent/services.ts";
import type { LldpNeighbour, LldpSession } from "../../../src/network/lldp/neighbour.ts";
import type { InstallInput, InstallOutput } from "../../../src/install/install.ts";
import { installImage } from "../../../src/install/image.ts";

/** The fake session reporting FAKE_LLDP's neighbours; undefined (the real receiver) without FAKE_LLDP. */
function fakeLldp(json: string | undefined): LldpSession | undefined {
  if (json === undefined) return undefined;
  const byInterface = new Map<string, LldpNeighbour[]>();
  for (const n of JSON.parse(json) as LldpNeighbour[]) byInterface.set(n.interface, [...(byInterface.get(n.interface) ?? []), n]);
  return { neighbours: () => byInterface, waitForSwitches: async () => byInterface, close: async () => {} };
}
const fake = fakeLldp(process.env.FAKE_LLDP);

const noDisks: DiskStages = {
  wipe: async () => {},
  wipeBoundMs: async () => 0,
  layout: async () => {
    throw new AgentError("layout_refused", "agent-driver (test): this host's disks are never laid out; refused before anything was written");
  },
};

/** FAKE_TARGET: the layout is this directory (nothing mounted, nothing to unmount). */
const fakeTarget = process.env.FAKE_TARGET;
const targetDisks: DiskStages | undefined = fakeTarget
  ? { ...noDisks, layout: async () => ({ root: fakeTarget, rootUuid: "00000000-0000-4000-8000-000000000000", finish: async () => {}, unmount: async () => {} }) }
  : undefined;

/** The image streamed into FAKE_TARGET as the flow does it, then a stop before the installer: nothing past the image runs on this host. */
async function imageOnly(i: InstallInput): Promise<InstallOutput> {
  await installImage({ http: i.http, url: i.imageUrl, root: i.root, log: i.log, ...(i.stallMs !== undefined ? { stallMs: i.stallMs } : {}) });
  throw new AgentError("installer", `agent-driver (test): the image is on ${i.root}; no installer, boot order or kexec runs on this host`);
}

/** The host's BMC is not the machine's either: never read or written here. */
const noBmc: BmcStages = {
  discover: async () => ({ present: false, notes: ["agent-driver (test): this host's BMC is never touched"] }),
  superUser: async () => ({ ok: false, notes: ["agent-driver (test): this host's BMC is never touched"] }),
};

const ctx = createContext(processIo());
const registrars = (await registrarsFor([])).map((r) =>
  r === registerRun
    ? (p: Parameters<typeof r>[0], c: typeof ctx) =>
        registerRun(p, c, {
          ...(fake ? { selectNics: () => [], startLldp: () => fake } : {}),
          disks: targetDisks ?? noDisks,
          ...(targetDisks ? { installOs: imageOnly } : {}),
          bmc: noBmc,
          ...(process.env.RESOLV_CONF ? { resolvConf: process.env.RESOLV_CONF } : {}),
        })
    : r,
);
// As src/main.ts: what is queued for stdout/stderr (the final error line) is written before exit.
void runCli(process.argv.slice(2), ctx, registrars).then(async (code) => {
  await ctx.io.flush?.();
  process.exit(code);
});
