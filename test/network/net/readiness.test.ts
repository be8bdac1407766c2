import { describe, expect, test } from "bun:test";
import * as K from "../../../src/network/netlink/constants.ts";
import { InterfaceMachine } from "../../../src/network/net/machine.ts";
import { evaluate, type ReadinessInput } from "../../../src/network/net/readiness.ts";
import { addr, defaultRoute, link, UP, UP_CARRIER } from "./feed.ts";

function readyMachine(idx: number, name: string): InterfaceMachine {
  const m = new InterfaceMachine(idx, name, "02:00:00:00:aa:01", 0);
  m.apply(link(UP_CARRIER, { ifindex: idx }), 1);
  m.apply(defaultRoute("fe80::1", { oif: idx }), 2);
  m.apply(addr("2001:db8:1::1", 0, { ifindex: idx }), 3);
  return m;
}
function waitingMachine(idx: number, name: string, carrier = true): InterfaceMachine {
  const m = new InterfaceMachine(idx, name, "02:00:00:00:aa:02", 0);
  m.apply(link(carrier ? UP_CARRIER : UP, { ifindex: idx }), 1);
  return m;
}
const input = (o: Partial<ReadinessInput> = {}): ReadinessInput => ({ policy: "any", dnsNeeded: false, now: 1000, deadline: 30_000, carrierGraceMs: 10_000, ...o });

describe("readiness policy", () => {
  test("any: ready as soon as one interface is", () => {
    const v = evaluate([waitingMachine(3, "eth1"), readyMachine(2, "eth0")], input());
    expect(v.kind).toBe("ready");
    expect(v.kind === "ready" && v.ready.map((m) => m.name)).toEqual(["eth0"]);
  });

  test("all: waits for the dead one, then times out naming it and its step", () => {
    const ms = [readyMachine(2, "eth0"), waitingMachine(3, "eth1")];
    expect(evaluate(ms, input({ policy: "all" })).kind).toBe("wait");
    const v = evaluate(ms, input({ policy: "all", now: 30_000 }));
    expect(v).toMatchObject({ kind: "fail", code: "net_timeout", reasons: ["eth1: no router advertisement after 30s (link-local address still tentative)"] });
  });

  test("a DAD failure on the only interface fails at once with dad_failed", () => {
    const m = waitingMachine(2, "eth0");
    m.apply(addr("2001:db8:1::1", K.IFA_F_DADFAILED | K.IFA_F_TENTATIVE, { op: "del" }), 5);
    const v = evaluate([m], input({ now: 6 }));
    expect(v).toMatchObject({ kind: "fail", code: "dad_failed" });
    expect(v.kind === "fail" && v.message).toContain("eth0: duplicate address 2001:db8:1::1 (DAD failed)");
  });

  test("any: a DAD failure on one interface does not stop the others", () => {
    const bad = waitingMachine(3, "eth1");
    bad.apply(addr("2001:db8:1::1", K.IFA_F_DADFAILED, { op: "del", ifindex: 3 }), 5);
    expect(evaluate([bad, waitingMachine(2, "eth0")], input()).kind).toBe("wait");
  });

  test("no carrier past the grace period: no_carrier, without waiting for the whole timeout", () => {
    const m = waitingMachine(2, "eth0", false);
    expect(evaluate([m], input({ now: 9_999 })).kind).toBe("wait");
    expect(evaluate([m], input({ now: 10_000 }))).toMatchObject({ kind: "fail", code: "no_carrier", reasons: ["eth0: no carrier after 10s"] });
  });

  test("any: one interface without carrier is given up while another still can become ready", () => {
    expect(evaluate([waitingMachine(2, "eth0", false), waitingMachine(3, "eth1")], input({ now: 20_000 })).kind).toBe("wait");
  });
});
