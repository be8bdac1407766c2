/** A fleet's first machine with its NIC up by the kernel's own SLAAC (no agent), past DAD: the address the servers see it by. */
import type { Fleet, FleetMachine } from "../../../lab/fleet/fleet.ts";
import { run } from "../../../lab/ipxe/lab-process.ts";
import { waitFor } from "../../../lab/base/wait.ts";

export async function machineWithAddress(fleet: Fleet): Promise<FleetMachine> {
  const m = fleet.machines[0];
  if (!m) throw new Error("no machine");
  await run(["ip", "-n", m.ns, "link", "set", "eth0", "up"]);
  const usable = async () =>
    (JSON.parse(await run(["ip", "-n", m.ns, "-j", "-6", "addr", "show", "dev", "eth0", "scope", "global", "-tentative"])) as { addr_info?: unknown[] }[])[0]?.addr_info?.length ??
    0;
  await waitFor(async () => (await usable()) > 0, 20_000, "the machine's SLAAC address past DAD", 100);
  return m;
}
