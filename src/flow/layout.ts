/**
 * Stage "layout" (built-in flow): the allocation's FilesystemLayout, mapped to
 * protobuf JSON (the disk planner's input, src/disk/layout-input.ts mirrors it), is
 * built on the disks and mounted as the target root; its root UUID and RAID flag go
 * to the installer. Stage "wipe" (before Waiting) is Services.disks.wipe itself.
 */
import { toJson } from "@bufbuild/protobuf";
import { FilesystemLayoutSchema } from "../gen/metalstack/api/v2/filesystem_pb.ts";
import type { MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import type { Services, TargetRoot } from "./services.ts";

export async function layout(allocation: MachineAllocation, s: Services): Promise<TargetRoot> {
  const json = allocation.filesystemLayout ? toJson(FilesystemLayoutSchema, allocation.filesystemLayout) : undefined;
  return await s.disks.layout(json, s.log);
}
