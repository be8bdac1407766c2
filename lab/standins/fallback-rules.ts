/**
 * The project's own copy of the upstream validation rules the agent's requests touch, for a
 * clone without the upstream protos (validation.ts falls back to these, saying so; under
 * CI=true it does not). Each rule's source (metal-stack/api@e6201fcb):
 * string.uuid, empty allowed (bufbuild/protovalidate@4baed765
 * proto/protovalidate/buf/validate/validate.proto:3491-3493; infra/v2/boot.proto:81 Register,
 * :111 Wait, :123 InstallationSucceeded, :137 SuperUserPassword), macaddress (api/v2/predefined_rules.proto:10-14; machine.proto:486
 * MachineNic.mac, neighbours too: they are MachineNics), is_name 2..128
 * (predefined_rules.proto:16-20; machine.proto:488 MachineNic.name, :506
 * MachineBlockDevice.name), is_partition 2..128 (predefined_rules.proto:28-32; boot.proto:95),
 * is_description <= 256 (predefined_rules.proto:22-26; bios fields machine.proto:570-574,
 * metal_hammer_version boot.proto:93), max_len 128 (machine.proto:490-494 MachineNic
 * identifier/vendor/model), max_len 256 (machine.proto:466-468 MetalCPU and 478-480 MetalGPU
 * vendor/model), console_password min_len 2 max_len 128 (boot.proto:125-128; validate.proto:3092-3110). Messages as
 * protovalidate words them. The upstream protos have more (host_and_port for bmc.address, the
 * CEL rules): with them present the stand-in enforces all of those instead.
 */
import type { Message } from "@bufbuild/protobuf";
import type { MachineNic } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import type { BootServiceInstallationSucceededRequest, BootServiceRegisterRequest } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import type { ViolationLine } from "./violation-line.ts";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const MAC = /^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$/;

const v = (field: string, message: string, ruleId: string): ViolationLine => ({ field, message, ruleId });
const uuid = (s: string, out: ViolationLine[]) => void (s === "" || UUID.test(s) || out.push(v("uuid", "must be a valid UUID", "string.uuid")));
const isName = (s: string, field: string, out: ViolationLine[], rule = "string.is_name") =>
  void ((s.length < 2 || s.length > 128) && out.push(v(field, "must be within 2 and 128 characters", rule)));
const maxLen = (s: string, n: number, field: string, out: ViolationLine[]) => void (s.length > n && out.push(v(field, `must be at most ${n} characters`, "string.max_len")));
const isDescription = (s: string, field: string, out: ViolationLine[]) =>
  void (s.length > 256 && out.push(v(field, "must be shorter than 256 characters", "string.is_description")));

function nic(n: MachineNic, path: string, out: ViolationLine[]): void {
  if (!MAC.test(n.mac)) out.push(v(`${path}.mac`, "this string must be a valid macaddress", "string.macaddress"));
  isName(n.name, `${path}.name`, out);
  for (const k of ["identifier", "vendor", "model"] as const) maxLen(n[k], 128, `${path}.${k}`, out);
  n.neighbors.forEach((x, i) => nic(x, `${path}.neighbors[${i}]`, out));
}

function register(r: BootServiceRegisterRequest): ViolationLine[] {
  const out: ViolationLine[] = [];
  uuid(r.uuid, out);
  r.hardware?.cpus.forEach((c, i) => ["vendor", "model"].forEach((f) => maxLen(c[f as "vendor" | "model"], 256, `hardware.cpus[${i}].${f}`, out)));
  r.hardware?.gpus.forEach((c, i) => ["vendor", "model"].forEach((f) => maxLen(c[f as "vendor" | "model"], 256, `hardware.gpus[${i}].${f}`, out)));
  r.hardware?.nics.forEach((n, i) => nic(n, `hardware.nics[${i}]`, out));
  r.hardware?.disks.forEach((d, i) => isName(d.name, `hardware.disks[${i}].name`, out));
  for (const k of ["version", "vendor", "date"] as const) if (r.bios) isDescription(r.bios[k], `bios.${k}`, out);
  isDescription(r.metalHammerVersion, "metal_hammer_version", out);
  isName(r.partition, "partition", out, "string.is_partition");
  return out;
}

function installationSucceeded(r: BootServiceInstallationSucceededRequest): ViolationLine[] {
  const out: ViolationLine[] = [];
  uuid(r.uuid, out);
  const n = r.consolePassword.length;
  if (n < 2) out.push(v("console_password", "must be at least 2 characters", "string.min_len"));
  if (n > 128) out.push(v("console_password", "must be at most 128 characters", "string.max_len"));
  return out;
}

/** The violations of `message` (of type `typeName`) under the carried rules; empty when valid. */
export function fallbackViolations(typeName: string, message: Message): ViolationLine[] {
  switch (typeName) {
    case "metalstack.infra.v2.BootServiceRegisterRequest":
      return register(message as BootServiceRegisterRequest);
    case "metalstack.infra.v2.BootServiceInstallationSucceededRequest":
      return installationSucceeded(message as BootServiceInstallationSucceededRequest);
    case "metalstack.infra.v2.BootServiceWaitRequest":
    case "metalstack.infra.v2.BootServiceSuperUserPasswordRequest": {
      const out: ViolationLine[] = [];
      uuid((message as unknown as { uuid: string }).uuid, out);
      return out;
    }
    default:
      return [];
  }
}
