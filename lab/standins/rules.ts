/**
 * The apiserver's rules that live in Go code, not in the protos (the protos' validation
 * rules are enforced by protovalidate: validation.ts), each with its upstream source:
 * - who may call what: the method options in the generated descriptors
 *   (metal-stack/api@e6201fcb proto/metalstack/infra/v2/boot.proto:28-45: machine_roles =
 *   MACHINE_ROLE_EDITOR for SuperUserPassword/Register/Wait/InstallationSucceeded,
 *   boot.proto:15-23 Dhcp/Boot infra_roles; event.proto:11-12: EventService/Send
 *   infra_roles = INFRA_ROLE_EDITOR; api/v2/version.proto:12-13 and health.proto:10-11:
 *   visibility = VISIBILITY_PUBLIC), and the token's subject;
 * - Register (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:721-730): uuid
 *   empty, hardware nil, bios nil -> invalid_argument; then switch.go:296-315
 *   ConnectMachineWithSwitches: the distinct neighbour hostnames over all NICs must be
 *   exactly 2, else failed_precondition; with a switch table, the port matching of
 *   switch.go and pkg/db/metal/switch.go follows (switches.ts, MachineBook.connectSwitches);
 * - InstallationSucceeded (machine.go:933-940) and Wait (machine.go:1322-1329): the machine
 *   is read first; one the apiserver does not know is not_found.
 */
import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { infra_roles, machine_roles, visibility, Visibility } from "../../src/gen/metalstack/api/v2/common_pb.ts";
import type { BootServiceInstallationSucceededRequest, BootServiceRegisterRequest } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";

/** A caller: the machine token (MACHINE_ROLE_EDITOR for one uuid, pixiecore/http.go:240-246) or an infra token. */
export type Subject = { readonly kind: "machine"; readonly uuid: string } | { readonly kind: "infra"; readonly service?: string } | undefined;

export type Refusal = { readonly code: string; readonly message: string };

/** What the apiserver knows of machines: registered ones and allocated ones (machines.ts MachineBook). */
export type KnownMachines = { readonly registered: ReadonlyMap<string, unknown>; readonly allocations: ReadonlyMap<string, unknown> };

/** Permission by role and subject, from the method's options. undefined: allowed. */
export function authorize(method: DescMethod, subject: Subject, requestUuid: string | undefined): Refusal | undefined {
  if (getOption(method, visibility) === Visibility.PUBLIC) return undefined;
  if (!subject) return { code: "unauthenticated", message: "no or unknown bearer token" };
  if (getOption(method, infra_roles).length > 0) {
    // event.proto: Send is INFRA_ROLE_EDITOR only; a machine token has no infra role.
    return subject.kind === "infra"
      ? undefined
      : { code: "permission_denied", message: `access to:"${method.parent.typeName}/${method.name}" is not allowed because it is not part of the token permissions` };
  }
  if (getOption(method, machine_roles).length > 0) {
    if (subject.kind === "machine" && subject.uuid === requestUuid) return undefined;
    return {
      code: "permission_denied",
      message: `access to:"${method.parent.typeName}/${method.name}" with subject:"${requestUuid ?? ""}" is not allowed because it is not part of the token permissions`,
    };
  }
  return { code: "permission_denied", message: "method has no permission options" };
}

/** machine.go Register's own checks (after protovalidate), then switch.go's two-switch rule. */
export function registerRefusal(r: BootServiceRegisterRequest, twoSwitches = true): Refusal | undefined {
  if (r.uuid === "") return { code: "invalid_argument", message: "uuid is empty" };
  if (!r.hardware) return { code: "invalid_argument", message: "hardware is nil" };
  if (!r.bios) return { code: "invalid_argument", message: "bios is nil" };
  const switches = [...new Set(r.hardware.nics.flatMap((n) => n.neighbors.map((x) => x.hostname)))];
  if (twoSwitches && switches.length !== 2)
    return { code: "failed_precondition", message: `machine ${r.uuid} is not connected to exactly two switches, found connections to switches [${switches.join(" ")}]` };
  return undefined;
}

/**
 * InstallationSucceeded's checks after protovalidate (metal-apiserver pkg/repository/machine.go
 * InstallationSucceeded, 933-940): an unknown machine is not_found, one without an allocation a
 * plain error (connect-go answers a plain error as code unknown).
 */
export function installationRefusal(r: BootServiceInstallationSucceededRequest, machines: KnownMachines): Refusal | undefined {
  if (!machines.registered.has(r.uuid)) return { code: "not_found", message: `machine with id "${r.uuid}" not found` };
  if (!machines.allocations.has(r.uuid)) return { code: "unknown", message: `the machine "${r.uuid}" is not allocated` };
  return undefined;
}

/**
 * Wait's check after protovalidate (metal-apiserver pkg/repository/machine.go:1322-1329): the
 * machine is read before anything is sent; one the apiserver does not know (never registered,
 * no allocation) is not_found.
 */
export function waitRefusal(uuid: string, machines: KnownMachines): Refusal | undefined {
  if (!machines.registered.has(uuid) && !machines.allocations.has(uuid)) return { code: "not_found", message: `machine with id "${uuid}" not found` };
  return undefined;
}
