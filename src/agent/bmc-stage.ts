/**
 * The BMC, inside the register stage as metal-hammer does it: read it and create the
 * metal user before Register (so Register carries bmc and fru), and set the superuser's
 * password from BootService/SuperUserPassword after it
 * (metal-stack/api@e6201fcb proto/metalstack/infra/v2/boot.proto:27-31: MACHINE_ROLE_EDITOR;
 * the apiserver answers feature_disabled when it has none:
 * metal-stack/metal-apiserver@3f09705a pkg/service/infra/boot/boot-service.go:74-81).
 * Nothing here stops provisioning: a BMC or an answer that fails is a warning.
 */
import type { Api } from "./api-stage.ts";
import type { Boot } from "../clients/metal-boot/boot.ts";
import type { BmcOutcome } from "../machine/bmc/discover.ts";
import { bmcRegisterFields, type BmcRegisterFields } from "../machine/bmc/register-fields.ts";
import { bmcVendor } from "../machine/bmc/vendor.ts";
import { IPMITOOL_TIMEOUT_MS } from "../machine/bmc/ipmitool.ts";
import { callUnary, procedureOf } from "../clients/api/rpc.ts";
import { toAgentError } from "../platform/errors.ts";
import { BootService } from "../gen/metalstack/infra/v2/boot_pb.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

export const SUPER_USER_PASSWORD = procedureOf(BootService.method.superUserPassword);

/** What the BMC steps of `register` use of the services (a test fakes only this). */
export type BmcServices = Pick<Services, "log" | "bmc" | "secrets">;

/** Reads the BMC and writes the metal user (never throws); `fields` are what Register carries of it. */
export async function readBmcForRegister(s: Omit<BmcServices, "secrets">): Promise<{ readonly outcome: BmcOutcome; readonly fields: BmcRegisterFields }> {
  logEvent(
    s.log,
    "bmc.start",
    { timeoutMsPerCall: IPMITOOL_TIMEOUT_MS },
    `reading the BMC in-band (ipmitool lan print, bmc info, fru; then the metal user), each call at most ${IPMITOOL_TIMEOUT_MS / 1000} s`,
  );
  let o: BmcOutcome;
  try {
    o = await s.bmc.discover();
  } catch (e) {
    o = { present: false, notes: [`the BMC could not be read: ${toAgentError(e).message}`] };
  }
  if (!o.present) {
    logEvent(s.log, "bmc.read", { present: false, notes: o.notes }, o.notes[0] ?? "no BMC", o.notes[0]?.startsWith("no BMC") ? "info" : "warn");
    return { outcome: o, fields: bmcRegisterFields(o) };
  }
  const fields = bmcRegisterFields(o);
  const notes = [...o.notes, ...fields.notes];
  const { lan, firmwareRevision, fru, vendor } = o;
  logEvent(
    s.log,
    "bmc.read",
    { present: true, ip: lan.ip ?? null, mac: lan.mac ?? null, firmwareRevision: firmwareRevision ?? null, vendor: vendor ?? null, fru, notes },
    `BMC ${lan.ip ?? "(no address)"} ${lan.mac ?? "(no MAC)"}, firmware ${firmwareRevision ?? "unknown"}${notes.length ? `; ${notes.length} problem(s): ${notes.join("; ")}` : ""}`,
    notes.length ? "warn" : "info",
  );
  if (o.user)
    logEvent(
      s.log,
      "bmc.user",
      { user: o.user.name, id: o.user.id, vendor: vendor ?? null },
      `BMC user ${o.user.name} (id ${o.user.id}) created with a fresh password, Administrator`,
    );
  else
    logEvent(
      s.log,
      "bmc.user",
      { user: null, vendor: vendor ?? null, metalUserBefore: o.metalUserBefore ?? null },
      fields.backwards ? `no BMC user written: ${fields.backwards}` : "no BMC user written: Register reports the BMC without credentials",
      "warn",
    );
  return { outcome: o, fields };
}

/** BootService/SuperUserPassword, then the password on the vendor's superuser (never throws). */
export async function setSuperUser(boot: Boot, api: Api, bmc: BmcOutcome, s: BmcServices): Promise<void> {
  if (!bmc.present) return;
  const vendor = bmc.vendor ? bmcVendor(bmc.vendor) : undefined;
  if (!vendor) {
    logEvent(s.log, "bmc.superuser", { set: false }, "superuser password not set: the board vendor's superuser is not known", "warn");
    return;
  }
  let answer;
  try {
    answer = (await callUnary(api.client, BootService.method.superUserPassword, { uuid: boot.uuid })).message;
  } catch (e) {
    logEvent(
      s.log,
      "bmc.superuser",
      { set: false, procedure: SUPER_USER_PASSWORD },
      `superuser password not set: ${SUPER_USER_PASSWORD} failed: ${toAgentError(e).message}`,
      "warn",
    );
    return;
  }
  if (answer.featureDisabled || answer.superUserPassword === "") {
    logEvent(s.log, "bmc.superuser", { set: false, featureDisabled: answer.featureDisabled }, "superuser password not set: the apiserver has the feature disabled");
    return;
  }
  // Known as a secret before it goes anywhere else (the log scrubs it from every line).
  s.secrets.add(answer.superUserPassword);
  const r = await s.bmc.superUser(vendor, answer.superUserPassword).catch((e: unknown) => ({ ok: false, notes: [toAgentError(e).message] }));
  if (r.ok)
    logEvent(
      s.log,
      "bmc.superuser",
      { set: true, user: vendor.superUser.name, id: vendor.superUser.id, notes: r.notes },
      `BMC superuser ${vendor.superUser.name} (id ${vendor.superUser.id}) has the password the apiserver handed out`,
    );
  else logEvent(s.log, "bmc.superuser", { set: false, user: vendor.superUser.name, notes: r.notes }, `superuser password not set: ${r.notes.join("; ")}`, "warn");
}
