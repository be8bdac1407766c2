/**
 * Register's `bmc` never goes backwards: with the metal user not written, Register is held
 * back when the user was on the BMC before (or that is unknown), and goes on without
 * credentials when it never was. Exact vectors.
 */
import { expect, test } from "bun:test";
import type { BmcReport } from "../../../src/machine/bmc/discover.ts";
import { bmcRegisterFields } from "../../../src/machine/bmc/register-fields.ts";

const READ: BmcReport = { present: true, lan: { ip: "192.0.2.10", mac: "52:54:00:ab:cd:ef", notes: [] }, firmwareRevision: "1.02", fru: {}, vendor: "Supermicro", notes: [] };
const FAILED = "ipmitool -I open user set name 10 metal: exit 1: Insufficient privilege level";

test("the user written: the full bmc, whatever was there before", () => {
  expect(bmcRegisterFields({ ...READ, user: { name: "metal", id: 10, password: "pw" }, metalUserBefore: "present" })).toEqual({
    bmc: { address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "metal", password: "pw", interface: "lanplus", version: "1.02" },
    notes: [],
  });
});

test("the user not written but there before: backwards, no bmc", () => {
  expect(bmcRegisterFields({ ...READ, metalUserBefore: "present", notes: [FAILED] })).toEqual({
    notes: [],
    backwards: `the metal BMC user is on the BMC from an earlier boot, so the apiserver holds its credentials, and it could not be written now (${FAILED}); Register replaces the stored BMC record wholesale (empty without bmc) and this machine's token cannot read it: not registering, so the credentials that work stay stored`,
  });
  expect(bmcRegisterFields({ ...READ, metalUserBefore: "unknown", notes: [FAILED] }).backwards).toStartWith(
    "the metal BMC user may be on the BMC from an earlier boot (the user list could not be read)",
  );
});

test("the user not written and never there, or no user written at all (unknown vendor, read only): the BMC without credentials", () => {
  const without = { address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "", password: "", interface: "lanplus", version: "1.02" };
  expect(bmcRegisterFields({ ...READ, metalUserBefore: "absent", notes: [FAILED] })).toEqual({ bmc: without, notes: [] });
  const { vendor: _v, ...noVendor } = READ;
  expect(bmcRegisterFields(noVendor)).toEqual({ bmc: without, notes: [] });
  expect(bmcRegisterFields({ present: false, notes: ["no BMC"] })).toEqual({ notes: [] });
});
