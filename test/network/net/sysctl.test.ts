import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyInterfaceSysctls } from "../../../src/network/net/sysctl.ts";

const RFC = { fast: false, noRsDelay: false };
const FAST = { fast: true, noRsDelay: true };
let root = "";
const conf = (i: string, k: string) => join(root, "net/ipv6/conf", i, k);
const read = (p: string) => readFileSync(p, "utf8").trim();
function fakeProc(ifname: string, values: Record<string, number>): void {
  mkdirSync(join(root, "net/ipv6/conf", ifname), { recursive: true });
  mkdirSync(join(root, "net/ipv6/neigh", ifname), { recursive: true });
  const defaults = {
    disable_ipv6: 1,
    forwarding: 1,
    accept_ra: 0,
    autoconf: 0,
    accept_dad: 0,
    dad_transmits: 0,
    router_solicitation_delay: 1,
    optimistic_dad: 0,
    use_optimistic: 0,
    ...values,
  };
  for (const [k, v] of Object.entries(defaults)) writeFileSync(conf(ifname, k), `${v}\n`);
  writeFileSync(join(root, "net/ipv6/neigh", ifname, "retrans_time_ms"), "1000\n");
}
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "mhn-proc-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("sysctls", () => {
  test("RFC delay kept (METAL_NET_RS_DELAY=1): IPv6 on, forwarding off, accept_ra 1, autoconf, DAD at least once; fast knobs untouched", () => {
    fakeProc("eth0", {});
    const writes = applyInterfaceSysctls(root, "eth0", RFC);
    expect(
      Object.fromEntries(
        ["disable_ipv6", "forwarding", "accept_ra", "autoconf", "accept_dad", "dad_transmits", "router_solicitation_delay", "optimistic_dad"].map((k) => [
          k,
          read(conf("eth0", k)),
        ]),
      ),
    ).toEqual({
      disable_ipv6: "0",
      forwarding: "0",
      accept_ra: "1",
      autoconf: "1",
      accept_dad: "1",
      dad_transmits: "1",
      router_solicitation_delay: "1",
      optimistic_dad: "0",
    });
    expect(writes.find((w) => w.path.endsWith("forwarding"))).toEqual({ path: "net/ipv6/conf/eth0/forwarding", from: 1, to: 0 });
  });

  test("l3 default: router_solicitation_delay 0 on the interface, not on conf/default; optimistic DAD and probe spacing untouched", () => {
    fakeProc("eth0", {});
    fakeProc("default", {});
    applyInterfaceSysctls(root, "eth0", { fast: false, noRsDelay: true });
    applyInterfaceSysctls(root, "default", { fast: false, noRsDelay: true });
    expect([read(conf("eth0", "router_solicitation_delay")), read(conf("default", "router_solicitation_delay"))]).toEqual(["0", "1"]);
    expect([read(conf("eth0", "optimistic_dad")), read(join(root, "net/ipv6/neigh/eth0/retrans_time_ms")), read(conf("eth0", "dad_transmits"))]).toEqual(["0", "1000", "1"]);
  });

  test("accept_dad and dad_transmits already above 1 are kept", () => {
    fakeProc("eth0", { accept_dad: 2, dad_transmits: 3 });
    applyInterfaceSysctls(root, "eth0", RFC);
    expect([read(conf("eth0", "accept_dad")), read(conf("eth0", "dad_transmits"))]).toEqual(["2", "3"]);
  });

  test("fast profile: no RS delay, optimistic DAD, 100 ms probes, and DAD still on", () => {
    fakeProc("eth0", {});
    applyInterfaceSysctls(root, "eth0", FAST);
    expect([
      read(conf("eth0", "router_solicitation_delay")),
      read(conf("eth0", "optimistic_dad")),
      read(conf("eth0", "use_optimistic")),
      read(join(root, "net/ipv6/neigh/eth0/retrans_time_ms")),
    ]).toEqual(["0", "1", "1", "100"]);
    expect(read(conf("eth0", "dad_transmits"))).toBe("1");
  });

  test("forwarding that cannot be turned off gets accept_ra=2", () => {
    fakeProc("eth0", {});
    rmSync(conf("eth0", "forwarding"));
    mkdirSync(conf("eth0", "forwarding")); // a write there fails
    applyInterfaceSysctls(root, "eth0", RFC);
    expect(read(conf("eth0", "accept_ra"))).toBe("2");
  });

  test("a sysctl that cannot be written is an error naming the file", () => {
    fakeProc("eth0", {});
    rmSync(conf("eth0", "autoconf"));
    mkdirSync(conf("eth0", "autoconf"));
    expect(() => applyInterfaceSysctls(root, "eth0", RFC)).toThrow(/sysctl net\/ipv6\/conf\/eth0\/autoconf=1/);
  });

  test("values already right are not rewritten", () => {
    fakeProc("eth0", { disable_ipv6: 0, forwarding: 0, accept_ra: 1, autoconf: 1, accept_dad: 1, dad_transmits: 1 });
    expect(applyInterfaceSysctls(root, "eth0", RFC)).toEqual([]);
  });
});
