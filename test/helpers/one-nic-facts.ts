import type { RawFacts } from "../../src/machine/inventory/inventory-facts.ts";

/** A machine's facts with 1 GiB and one NIC (eth0, 52:54:00:12:34:56) and nothing else: what the flow and Register tests feed the inventory. */
export const ONE_NIC_FACTS: RawFacts = {
  memTotalBytes: 1 << 30,
  cpuinfo: "",
  nets: [{ name: "eth0", address: "52:54:00:12:34:56", type: "1", speed: undefined, devicePath: undefined, vendorId: undefined, deviceId: undefined, driver: undefined }],
  blocks: [],
  pci: [],
  dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined },
};
