import { describe, expect, test } from "bun:test";
import { attemptOrder, switchReason } from "../../../src/clients/http/uplink-order.ts";

const eth0 = { name: "eth0", address: "2001:db8:1::5" };
const eth1 = { name: "eth1", address: "2001:db8:2::5" };
const eth2 = { name: "eth2", address: "2001:db8:3::5" };

describe("which uplink goes first", () => {
  test("no preferred uplink yet: the network's order (its routers' preference)", () => {
    expect(attemptOrder([eth0, eth1], undefined).map((u) => u.name)).toEqual(["eth0", "eth1"]);
  });
  test("the uplink that last worked first, the others in the network's order after it", () => {
    expect(attemptOrder([eth0, eth1, eth2], "eth2").map((u) => u.name)).toEqual(["eth2", "eth0", "eth1"]);
  });
  test("a preferred uplink that is gone: the network's order", () => {
    expect(attemptOrder([eth0, eth1], "eth9").map((u) => u.name)).toEqual(["eth0", "eth1"]);
  });
});

describe("why connections moved, in words", () => {
  test("the first uplink still connecting when the delay ran out", () => {
    expect(switchReason("eth0", { pending: true }, 300)).toBe("no connection through eth0 within the connect-attempt delay of 300 ms");
  });
  test("the first uplink failed: its error and code", () => {
    const e = Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" });
    expect(switchReason("eth0", { failed: e }, 300)).toBe("connect through eth0 failed: Connect Timeout Error (UND_ERR_CONNECT_TIMEOUT)");
  });
  test("the preferred uplink is no uplink any more", () => {
    expect(switchReason("eth0", undefined, 300)).toBe("eth0 is no uplink any more (carrier, address or router gone)");
  });
});
