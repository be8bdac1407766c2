/**
 * Register's `bmc` and `fru` from the BMC stage's outcome, shaped as metal-hammer sends
 * them (metal-stack/metal-hammer@ec148e3 cmd/register/register.go:281-324): address
 * `<ip>:623`, interface `lanplus`, version `unknown` when the BMC printed none. The
 * apiserver validates `address` as host:port and `mac` as a MAC
 * (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto MachineBMC), so a BMC
 * without both is not reported (Register would be refused); its FRU still is. Pure.
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
}

export function bmcRegisterFields(o: BmcOutcome): BmcRegisterFields {
  if (!o.present) return { notes: [] };
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
