/**
 * Register's `bmc` and `fru` from the BMC stage's outcome, shaped as metal-hammer sends
 * them (metal-stack/metal-hammer@ec148e3 cmd/register/register.go:281-324): address
 * `<ip>:623`, interface `lanplus`, version `unknown` when the BMC printed none. The
 * apiserver validates `address` as host:port and `mac` as a MAC
 * (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto MachineBMC), so a BMC
 * without both is not reported (Register would be refused); its FRU still is.
 *
 * Never backwards: the apiserver takes Register's `bmc` wholesale, and without one stores an
 * empty record (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:804-817: the
 * IPMI record built from the request, zero when `bmc` is nil; :871 it replaces the stored
 * one), and the machine token cannot read the stored record (metal-stack/api@e6201fcb
 * proto/metalstack/api/v2/machine.proto:57-61 GetBMC: project roles; admin/v2/machine.proto:35-39:
 * admin roles). So the credentials known to work are the ones this boot wrote and verified;
 * when the metal user could not be written but was on the BMC before (an earlier boot
 * registered its password, which the BMC still has) or that cannot be told, any Register
 * would clear the stored credentials: `backwards` says why, and the register stage does not
 * register (exit 27), as metal-hammer does not when the user fails
 * (metal-stack/metal-hammer@ec148e3 cmd/register/register.go:298-301). A metal user that never
 * was there lost nothing: Register goes on with the BMC's address and no credentials. Pure.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MachineBMCSchema, MachineFRUSchema } from "../../gen/metalstack/api/v2/machine_pb.ts";
import type { BmcOutcome } from "./discover.ts";

export const IPMI_PORT = 623;
export const BMC_INTERFACE = "lanplus";

export interface BmcRegisterFields {
  readonly bmc?: MessageInitShape<typeof MachineBMCSchema>;
  readonly fru?: MessageInitShape<typeof MachineFRUSchema>;
  /** Why `bmc` is left out, when it is. */
  readonly notes: readonly string[];
  /** Why any Register now would leave the stored BMC record with less than it has: then nothing is registered. */
  readonly backwards?: string;
}

/** The reason Register would clear credentials the apiserver holds, or undefined. */
function backwardsReason(o: BmcOutcome): string | undefined {
  if (!o.present || o.user || o.metalUserBefore === undefined || o.metalUserBefore === "absent") return undefined;
  const before =
    o.metalUserBefore === "present"
      ? "is on the BMC from an earlier boot, so the apiserver holds its credentials"
      : "may be on the BMC from an earlier boot (the user list could not be read)";
  return `the metal BMC user ${before}, and it could not be written now (${o.notes.at(-1) ?? "no reason given"}); Register replaces the stored BMC record wholesale (empty without bmc) and this machine's token cannot read it: not registering, so the credentials that work stay stored`;
}

export function bmcRegisterFields(o: BmcOutcome): BmcRegisterFields {
  if (!o.present) return { notes: [] };
  const backwards = backwardsReason(o);
  if (backwards) return { notes: [], backwards };
  const fru = Object.keys(o.fru).length > 0 ? { ...o.fru } : undefined;
  const { ip, mac } = o.lan;
  if (!ip || !mac) {
    return {
      ...(fru ? { fru } : {}),
      notes: [
        `Register carries no bmc: the BMC reported ${!ip ? "no IP address" : ""}${!ip && !mac ? " and " : ""}${!mac ? "no MAC" : ""}, and the apiserver refuses a bmc without both`,
      ],
    };
  }
  const bmc = {
    address: `${ip}:${IPMI_PORT}`,
    mac,
    user: o.user?.name ?? "",
    password: o.user?.password ?? "",
    interface: BMC_INTERFACE,
    version: o.firmwareRevision ?? "unknown",
  };
  return { bmc, ...(fru ? { fru } : {}), notes: [] };
}
