/**
 * Stage "layout" (built-in flow): the allocation's FilesystemLayout, the generated
 * message as Wait decoded it (the disk planner takes it as it is), is built on the
 * disks and mounted as the target root; its root UUID and RAID flag go to the
 * installer (raidEnabled: the layout has md arrays, as metal-hammer cmd/install.go:217-219
 * decides). An allocation without a layout is refused before anything is written. Stage "wipe" (before Waiting) is Services.disks.wipe itself.
 */
import { AgentError } from "../platform/errors.ts";
import type { MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import type { Services, TargetRoot } from "./services.ts";

/** What the `layout` stage uses of the services (a test fakes only this). */
export type LayoutServices = Pick<Services, "disks" | "log">;

export async function layout(allocation: MachineAllocation, s: LayoutServices): Promise<TargetRoot> {
  const fl = allocation.filesystemLayout;
  if (!fl)
    throw new AgentError("layout_refused", `the allocation of ${allocation.uuid || "this machine"} has no filesystemLayout: nothing to partition, nothing installed`, {
      uuid: allocation.uuid,
    });
  const target = await s.disks.layout(fl, s.log);
  return { ...target, raidEnabled: fl.raid.length > 0 };
}
