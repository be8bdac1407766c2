/**
 * The stand-in's copy of the apiserver's BMC merge on Register
 * (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:804-830, 871): the record
 * is replaced wholesale, so leaving `bmc` out does not keep the stored one, it clears it.
 */
import { expect, test } from "bun:test";
import { registeredBmcRecord } from "../../../lab/standins/bmc-record.ts";
import { MachineBook } from "../../../lab/standins/machines.ts";

const UUID = "00000000-6d68-6300-0000-000000000038";
const BMC = { address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "metal", password: "pw", interface: "lanplus", version: "1.02" };

test("Register with bmc replaces the record; without bmc it is the zero record (FRU from fru); empty credentials clear them", () => {
  const book = new MachineBook();
  book.register(UUID, { uuid: UUID, bmc: BMC, fru: { productSerial: "S1" } });
  expect(book.bmc.get(UUID)).toEqual({ ...BMC, powerState: "", fru: { productSerial: "S1" } });
  book.register(UUID, { uuid: UUID, fru: { productSerial: "S1" } });
  expect(book.bmc.get(UUID)).toEqual({ address: "", mac: "", user: "", password: "", interface: "", version: "", powerState: "", fru: { productSerial: "S1" } });
  expect(registeredBmcRecord({ uuid: UUID, bmc: { ...BMC, user: "", password: "" } })).toMatchObject({ address: BMC.address, user: "", password: "" });
});
