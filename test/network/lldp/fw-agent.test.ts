import { expect, test } from "bun:test";
import { decideFwLldp, disableFirmwareLldp, type FwLldpIo } from "../../../src/network/lldp/fw-agent.ts";
import { memoryLog } from "./log.ts";

test("i40e: disable-fw-lldp off is turned on, other flags untouched", () => {
  const names = [
    "MFP",
    "total-port-shutdown",
    "LinkPolling",
    "flow-director-atr",
    "veb-stats",
    "hw-atr-eviction",
    "link-down-on-close",
    "legacy-rx",
    "disable-source-pruning",
    "disable-fw-lldp",
    "rs-fec",
    "base-r-fec",
  ];
  expect(decideFwLldp({ names, value: 0b1000 })).toEqual({ action: "set", flag: "disable-fw-lldp", value: 0b10_0000_1000 });
  expect(decideFwLldp({ names, value: 0b10_0000_1000 })).toEqual({ action: "already_off", flag: "disable-fw-lldp" });
});

test("ice: fw-lldp-agent on is turned off", () => {
  const names = ["link-down-on-close", "fw-lldp-agent", "vf-true-promisc-support", "mdd-auto-reset-vf", "legacy-rx"];
  expect(decideFwLldp({ names, value: 0b10011 })).toEqual({ action: "set", flag: "fw-lldp-agent", value: 0b10001 });
  expect(decideFwLldp({ names, value: 0b10001 })).toEqual({ action: "already_off", flag: "fw-lldp-agent" });
});

test("a driver without the flag (virtio, veth, e1000) needs nothing", () => {
  expect(decideFwLldp({ names: [], value: 0 })).toEqual({ action: "none" });
  expect(decideFwLldp({ names: ["legacy-rx"], value: 1 })).toEqual({ action: "none" });
});

test("bit 31 stays an unsigned flag word", () => {
  const names = [...Array.from({ length: 31 }, (_, i) => `f${i}`), "disable-fw-lldp"];
  expect(decideFwLldp({ names, value: 1 })).toEqual({ action: "set", flag: "disable-fw-lldp", value: 0x8000_0001 });
});

function fakeIo(names: string[], value: number, failWrite = false): FwLldpIo & { writes: number[] } {
  const writes: number[] = [];
  return {
    writes,
    read: () => ({ names, value }),
    write: (_if, v) => {
      if (failWrite) throw new Error("set the private flags of eth0 (ETHTOOL_SPFLAGS): EPERM");
      writes.push(v);
    },
  };
}

test("disableFirmwareLldp writes the flag word once and logs what it did", () => {
  const io = fakeIo(["disable-fw-lldp"], 0);
  const c = memoryLog();
  expect(disableFirmwareLldp("eth0", c.log, io)).toBe("turned_off");
  expect(io.writes).toEqual([1]);
  expect(c.records().find((r) => r.event === "lldp.fw_agent")).toMatchObject({ ifname: "eth0", outcome: "turned_off", flag: "disable-fw-lldp" });
});

test("a failing read or write is a warning, never an exception", () => {
  const c = memoryLog();
  expect(disableFirmwareLldp("eth0", c.log, fakeIo(["fw-lldp-agent"], 1, true))).toBe("failed");
  expect(
    disableFirmwareLldp("eth1", c.log, {
      read: () => {
        throw new Error("EOPNOTSUPP");
      },
      write: () => {},
    }),
  ).toBe("failed");
  expect(
    c
      .records()
      .filter((r) => r.event === "lldp.fw_agent" && r.level === 40)
      .map((r) => r.ifname),
  ).toEqual(["eth0", "eth1"]);
});
