/** Stage "install" (built-in flow): the image installation, not built yet: the flow ends here with not_built. */
import type { Boot } from "../boot/boot.ts";
import { AgentError } from "../errors.ts";
import type { MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";

export function install(boot: Boot, allocation: MachineAllocation): never {
  throw new AgentError("not_built", `built-in provisioning flow: ${boot.uuid} is allocated (image ${allocation.image?.id || "(none)"}), but the next step "install image" is not built yet (use METAL_HANDOFF=exec:/path for another next stage)`, { uuid: boot.uuid, step: "install image" });
}
