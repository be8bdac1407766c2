/**
 * The apiserver's rules, as strict as the real server, each with its upstream source
 * (../shared/reference/, pinned commits):
 * - who may call what: the method options in the generated descriptors
 *   (metal-stack-api proto/metalstack/infra/v2/boot.proto:28-45: machine_roles =
 *   MACHINE_ROLE_EDITOR for SuperUserPassword/Register/Wait/InstallationSucceeded,
 *   boot.proto:15-21 Dhcp/Boot infra_roles; event.proto:11-12: EventService/Send
 *   infra_roles = INFRA_ROLE_EDITOR; api/v2/version.proto:12-13 and health.proto:10-11:
 *   visibility = VISIBILITY_PUBLIC);
 * - validation (protovalidate with proto/metalstack/api/v2/predefined_rules.proto):
 *   string.uuid (boot.proto uuid = 1), macaddress (predefined_rules.proto:10-14,
 *   machine.proto:486 MachineNic.mac, neighbours too: they are MachineNics), is_name
 *   2..128 (predefined_rules.proto:16-20, machine.proto:488 MachineNic.name),
 *   is_partition 2..128 (predefined_rules.proto:28-32, boot.proto:92), is_description
 *   <= 256 (predefined_rules.proto:22-26: bios fields machine.proto:570-574,
 *   metal_hammer_version boot.proto:93), max_len 128 (machine.proto:490-494 MachineNic
 *   identifier/vendor/model), max_len 256 (machine.proto:466-468 MetalCPU and 478-480
 *   MetalGPU vendor/model), is_name (machine.proto:506 MachineBlockDevice.name);
 * - Register (metal-apiserver pkg/repository/machine.go:721-730): uuid empty, hardware
 *   nil, bios nil -> invalid_argument; then switch.go:296-315
 *   ConnectMachineWithSwitches: the distinct neighbour hostnames over all NICs must be
 *   exactly 2, else failed_precondition; with a switch table, the port matching of
 *   switch.go and pkg/db/metal/switch.go follows (switches.ts, MachineBook.connectSwitches).
 */
import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { infra_roles, machine_roles, visibility, Visibility } from "../../src/gen/metalstack/api/v2/common_pb.ts";
import type { MachineNic } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import type { BootServiceInstallationSucceededRequest, BootServiceRegisterRequest } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";

/** A caller: the machine token (MACHINE_ROLE_EDITOR for one uuid, pixiecore/http.go:240-246) or an infra token. */
export type Subject = { readonly kind: "machine"; readonly uuid: string } | { readonly kind: "infra" } | undefined;

export type Refusal = { readonly code: string; readonly message: string };

/** What the apiserver knows of machines: registered ones and allocated ones (machines.ts MachineBook). */
export type KnownMachines = { readonly registered: ReadonlyMap<string, unknown>; readonly allocations: ReadonlyMap<string, unknown> };

/** Permission by role and subject, from the method's options. undefined: allowed. */
export function authorize(method: DescMethod, subject: Subject, requestUuid: string | undefined): Refusal | undefined {
  if (getOption(method, visibility) === Visibility.PUBLIC) return undefined;
  if (!subject) return { code: "unauthenticated", message: "no or unknown bearer token" };
  if (getOption(method, infra_roles).length > 0) {
    // event.proto: Send is INFRA_ROLE_EDITOR only; a machine token has no infra role.
    return subject.kind === "infra" ? undefined : { code: "permission_denied", message: `access to:"${method.parent.typeName}/${method.name}" is not allowed because it is not part of the token permissions` };
  }
  if (getOption(method, machine_roles).length > 0) {
    if (subject.kind === "machine" && subject.uuid === requestUuid) return undefined;
    return { code: "permission_denied", message: `access to:"${method.parent.typeName}/${method.name}" with subject:"${requestUuid ?? ""}" is not allowed because it is not part of the token permissions` };
  }
  return { code: "permission_denied", message: "method has no permission options" };
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const MAC = /^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$/;

export const isUuid = (s: string) => UUID.test(s);

function nicViolations(n: MachineNic, path: string, out: string[]): void {
  if (!MAC.test(n.mac)) out.push(`${path}.mac: this string must be a valid macaddress [string.macaddress]`);
  if (n.name.length < 2 || n.name.length > 128) out.push(`${path}.name: must be within 2 and 128 characters [string.is_name]`);
  for (const k of ["identifier", "vendor", "model"] as const) if (n[k].length > 128) out.push(`${path}.${k}: value length must be at most 128 characters [string.max_len]`);
  n.neighbors.forEach((x, i) => nicViolations(x, `${path}.neighbors[${i}]`, out));
}

/** protovalidate's view of a Register request (violations, empty when valid). */
export function registerViolations(r: BootServiceRegisterRequest): string[] {
  const out: string[] = [];
  if (!isUuid(r.uuid)) out.push("uuid: value must be a valid UUID [string.uuid]");
  if (r.partition.length < 2 || r.partition.length > 128) out.push("partition: must be within 2 and 128 characters [string.is_partition]");
  if (r.metalHammerVersion.length > 256) out.push("metal_hammer_version: must be shorter than 256 characters [string.is_description]");
  r.hardware?.nics.forEach((n, i) => nicViolations(n, `hardware.nics[${i}]`, out));
  r.hardware?.disks.forEach((d, i) => {
    if (d.name.length < 2 || d.name.length > 128) out.push(`hardware.disks[${i}].name: must be within 2 and 128 characters [string.is_name]`);
  });
  for (const k of ["cpus", "gpus"] as const) {
    r.hardware?.[k].forEach((c, i) => {
      for (const f of ["vendor", "model"] as const) if (c[f].length > 256) out.push(`hardware.${k}[${i}].${f}: value length must be at most 256 characters [string.max_len]`);
    });
  }
  for (const k of ["version", "vendor", "date"] as const) if ((r.bios?.[k].length ?? 0) > 256) out.push(`bios.${k}: must be shorter than 256 characters [string.is_description]`);
  return out;
}

/** machine.go Register's own checks, then switch.go's two-switch rule. */
export function registerRefusal(r: BootServiceRegisterRequest, twoSwitches = true): Refusal | undefined {
  const v = registerViolations(r);
  if (v.length > 0) return { code: "invalid_argument", message: `validation error:\n - ${v.join("\n - ")}` };
  if (r.uuid === "") return { code: "invalid_argument", message: "uuid is empty" };
  if (!r.hardware) return { code: "invalid_argument", message: "hardware is nil" };
  if (!r.bios) return { code: "invalid_argument", message: "bios is nil" };
  const switches = [...new Set(r.hardware.nics.flatMap((n) => n.neighbors.map((x) => x.hostname)))];
  if (twoSwitches && switches.length !== 2) return { code: "failed_precondition", message: `machine ${r.uuid} is not connected to exactly two switches, found connections to switches [${switches.join(" ")}]` };
  return undefined;
}

/**
 * InstallationSucceeded's checks: protovalidate (boot.proto:120-129: uuid a UUID,
 * console_password 2..128 characters), then metal-apiserver pkg/repository/machine.go
 * InstallationSucceeded (933-940): an unknown machine is not_found, one without an
 * allocation a plain error (connect-go answers a plain error as code unknown).
 */
export function installationRefusal(r: BootServiceInstallationSucceededRequest, machines: KnownMachines): Refusal | undefined {
  const v: string[] = [];
  if (!isUuid(r.uuid)) v.push("uuid: value must be a valid UUID [string.uuid]");
  if (r.consolePassword.length < 2 || r.consolePassword.length > 128) v.push("console_password: value length must be between 2 and 128 characters [string.min_len]");
  if (v.length > 0) return { code: "invalid_argument", message: `validation error:\n - ${v.join("\n - ")}` };
  if (!machines.registered.has(r.uuid)) return { code: "not_found", message: `machine with id "${r.uuid}" not found` };
  if (!machines.allocations.has(r.uuid)) return { code: "unknown", message: `the machine "${r.uuid}" is not allocated` };
  return undefined;
}

/**
 * Wait's check (metal-apiserver pkg/repository/machine.go:1326-1329): the machine is
 * read before anything is sent; one the apiserver does not know (never registered, no
 * allocation) is not_found. protovalidate's string.uuid (boot.proto:111) comes first.
 */
export function waitRefusal(uuid: string, machines: KnownMachines): Refusal | undefined {
  if (!isUuid(uuid)) return { code: "invalid_argument", message: "validation error:\n - uuid: value must be a valid UUID [string.uuid]" };
  if (!machines.registered.has(uuid) && !machines.allocations.has(uuid)) return { code: "not_found", message: `machine with id "${uuid}" not found` };
  return undefined;
}
