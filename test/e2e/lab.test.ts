/**
 * End to end: the QEMU lab boots the Debian kernel with our initramfs, the agent as
 * PID 1, against radvd in a network namespace, and the assertions read the serial
 * console (and the lab servers' logs). Needs root, /dev/net/tun, QEMU and the built
 * artifacts (`make test` builds them first).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { defaultRun, runLab, type LabResult } from "../../lab/direct/lab.ts";
import { DNS_ADDR, DNS_SEARCH, LAB_UUID } from "../../lab/rig/plan.ts";
import { KVER, LAB_INITRD, LAB_KERNEL } from "../../lab/base/kernel.ts";
import { labMissing } from "../../lab/base/prereqs.ts";

const KERNEL = LAB_KERNEL;
const INITRD = LAB_INITRD;
const missing = labMissing();
if (missing.length > 0) console.warn(`e2e lab skipped: missing ${missing.join(", ")}`);
const skipped = missing.length > 0 ? ` (skipped: missing ${missing.join(", ")})` : "";

const BOOT_BOUND_MS = 150_000;
const HOOK_MS = BOOT_BOUND_MS + 30_000;

const boot = (over: Parameters<typeof defaultRun>[0]) => runLab(defaultRun({ kernel: KERNEL, initrd: INITRD, live: false, timeoutMs: BOOT_BOUND_MS, ...over }));
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);
const last = (r: LabResult) => r.records.at(-1);
const netnsList = (): string => Bun.spawnSync(["ip", "netns", "list"]).stdout.toString();
const processAlive = (pattern: string): boolean => Bun.spawnSync(["pgrep", "-f", pattern]).exitCode === 0;
/** The modified EUI-64 SLAAC address for the lab's first NIC MAC 52:54:00:6d:68:01. */
const EUI64 = "5054:ff:fe6d:6801";
/**
 * The default lab has two NICs, each on its own segment (one per leaf); with METAL_NET_POLICY=any
 * the flow goes on with whichever is ready first. Each NIC's SLAAC address, in its own /64.
 */
const SLAAC: Readonly<Record<string, string>> = { eth0: `fd6d:686c:0:1:${EUI64}`, eth1: "fd6d:686c:0:2:5054:ff:fe6d:6802" };
/** Every DAD-done address is its NIC's SLAAC address in that NIC's own segment; at least one NIC got there. */
function expectOwnSegmentAddresses(r: LabResult): void {
  const dad = ev(r, "net.dad.done");
  expect(dad.length).toBeGreaterThan(0);
  for (const d of dad) expect(d.address).toBe(`${SLAAC[String(d.ifname)]}/64`);
}

describe.skipIf(missing.length > 0)(`QEMU lab: RA on the segment (virtio)${skipped}`, () => {
  let r: LabResult;
  beforeAll(async () => {
    r = await boot({});
  }, HOOK_MS);

  test("the agent ran as PID 1 from the initramfs and loaded the NIC modules", () => {
    expect(ev(r, "init.options")).toHaveLength(1);
    expect(ev(r, "agent.start")[0]).toMatchObject({ pid: 1, mode: "l3" });
    // Loaded for the virtio-net device (coldplug, src/init/coldplug.ts), each after its dependencies.
    const loaded = ev(r, "init.module").map((m) => m.module);
    const at = ["virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio_pci", "failover", "net_failover", "virtio_net"].map((m) => loaded.indexOf(m));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(ev(r, "init.module").filter((x) => Number(x.level) >= 40)).toEqual([]);
  });

  test("before loading any module PID 1 checked the running kernel: the lab kernel and its initramfs match, its config meets the fragment", () => {
    // Debian's kernel has no /proc/config.gz: the config is the copy the initramfs build put in (docs/kconfig.md "At boot").
    expect(ev(r, "init.kernel")).toEqual([]);
    const kc = ev(r, "init.kconfig");
    expect(kc).toHaveLength(1);
    expect(kc[0]).toMatchObject({ level: 30, outcome: "ok", release: KVER, config: `/boot/config-${KVER}`, failed: [], modules: { source: `/lib/modules/${KVER}` } });
    expect(Number((kc[0]?.modules as { count: number }).count)).toBeGreaterThan(50);
    expect(r.records.findIndex((x) => x.event === "init.kconfig")).toBeLessThan(r.records.findIndex((x) => x.event === "init.module"));
  });

  test("the flow ended at the layout (the lab's allocation has no filesystemLayout): the agent reboots, QEMU exits (-no-reboot)", () => {
    expect(r.outcome).toBe("reboot");
    expect(last(r)).toMatchObject({ event: "init.reboot", action: "reboot" });
    expect(r.lines.some((l) => /Kernel panic/.test(l.text))).toBe(false);
  });

  test("nothing the lab created is left behind: netns gone, QEMU, radvd and the stand-ins of this run gone", () => {
    expect(netnsList()).not.toContain(r.names.netns);
    expect(processAlive(r.names.taps[0] as string)).toBe(false);
    expect(processAlive(`${r.dir}/radvd.conf`)).toBe(false);
    expect(processAlive(`${r.dir}/standins`)).toBe(false);
    expect(existsSync(`${r.dir}/initrd`)).toBe(false);
    expect(existsSync(`${r.dir}/console.log`)).toBe(true);
  });

  test("SLAAC gave an address in the advertised /64 and DAD completed", () => {
    expectOwnSegmentAddresses(r);
    // Per NIC: the address was tentative before DAD finished.
    for (const d of ev(r, "net.dad.done")) {
      const tentative = ev(r, "net.addr.tentative").find((t) => t.ifname === d.ifname);
      if (tentative) expect(tentative.ms).toBeLessThanOrEqual(d.ms);
    }
    // One default route per NIC that got there (each learns its own segment's router once).
    const routes = ev(r, "net.route.default").map((x) => x.ifname);
    expect(routes.length).toBeGreaterThan(0);
    expect(new Set(routes).size).toBe(routes.length);
    expect(ev(r, "net.ready")).toHaveLength(1);
  });

  test("DNS servers and search list came from the RA (RDNSS, DNSSL)", () => {
    const dns = ev(r, "net.dns").at(-1);
    expect(dns?.servers).toEqual([DNS_ADDR]);
    expect(dns?.search).toEqual([DNS_SEARCH]);
  });

  test("after the network, each stage reached its lab server from the SLAAC address; only the layout failed (no filesystemLayout)", () => {
    expect(ev(r, "agent.fatal").map((f) => f.code)).toEqual(["layout_refused"]);
    const stages = ev(r, "agent.stage").map((s) => s.stage);
    expect(stages).toEqual(["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait", "layout"]);
    const requests = (r.serverLogs.standins ?? "")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { server: string; source: string | null; status: number; path: string })
      // The lab's own control calls (allocating the machine) come from inside the namespace.
      .filter((q) => !q.path.startsWith("/_standin/"));
    // A request may leave from either NIC's SLAAC address (two NICs, one per leaf).
    const guest = Object.values(SLAAC);
    // Only servers of stages that ran: the switch ACLs of MEP-20 allow nothing else, and neither does the lab.
    for (const [stage, server] of [
      ["boot", "boot"],
      ["api", "api"],
      ["image", "images"],
      ["register", "api"],
      ["wait", "api"],
    ] as const) {
      if (!stages.includes(stage)) continue;
      const mine = requests.filter((q) => q.server === server);
      expect(mine.length).toBeGreaterThan(0);
      for (const q of mine) expect(guest).toContain(q.source?.replace(/^::ffff:/, "") ?? "(no source)");
      expect(mine.some((q) => q.status >= 200 && q.status < 300)).toBe(true);
    }
    // The built-in flow registered the machine, got the lab operator's allocation, and
    // stopped at the layout: the lab operator's allocation has no filesystemLayout (layout_refused).
    const apiPaths = requests.filter((q) => q.server === "api").map((q) => q.path);
    expect(apiPaths).toContain("/metalstack.infra.v2.BootService/Register");
    // Register for real: the strict stand-in keeps the two-switch rule (switch.go) with the
    // lab's two lldpd leaves, and the agent sent both as neighbours.
    expect(ev(r, "lldp.neighbours")[0]).toMatchObject({ switches: ["leaf01", "leaf02"] });
    expect(requests.filter((q) => q.path === "/metalstack.infra.v2.BootService/Register").map((q) => q.status)).toEqual([200]);
    // The leaves announce as SONiC's lldpmgrd configures lldpd (Port ID = the alias Eth1/1(Port1)); the stand-in
    // holds them as metal-core registers them (Identifier = alias) and connected the machine as the apiserver does.
    expect(r.connections).toBe("connected: leaf01 Ethernet0, leaf02 Ethernet0");
    expect(ev(r, "lldp.neighbour.omitted")).toEqual([]);
    expect(apiPaths).toContain("/metalstack.infra.v2.BootService/Wait");
    expect(ev(r, "provision.allocation")).toHaveLength(1);
    expect(ev(r, "agent.fatal")[0]).toMatchObject({ code: "layout_refused" });
  });
});

// A fatal error with DEBUG off (reported, the delay, the reboot): asserted on the boot of test/e2e/drivers.test.ts,
// which ends with a config error (usage) with DEBUG off; one QEMU boot for both.

describe.skipIf(missing.length > 0)(`QEMU lab: a fatal error with DEBUG on opens the debug shell${skipped}`, () => {
  let r: LabResult;
  beforeAll(async () => {
    r = await boot({
      debug: true,
      expect: "reboot",
      extraCmdline: ["METAL_BOOT_URL=ftp://nowhere"],
      // The shell computes the marker, so an echo of the typed line cannot satisfy the test.
      // Then `metal-hammer lldp` (the NICs are not up: the flow stopped before the network) brings them up and lists who is on each port.
      // The kernel's console messages are turned down first: its "link becomes ready" lines come
      // asynchronously after the links went up and once landed inside the JSON line.
      consoleInput: {
        after: /"event":"init.shell".*"reason"/,
        text:
          "echo shell-pid-$$ uid-$(id -u) sum-$((6*7)) ca-$(grep -c 'BEGIN CERTIFICATE' /etc/metal/lab-ca.pem) mounts-$(grep -cE ' /(proc|sys|dev|dev/pts|run|tmp) (proc|sysfs|devtmpfs|devpts|tmpfs) ' /proc/mounts); " +
          `echo 1 > /proc/sys/kernel/printk; echo "LLDP-JSON $(metal-hammer lldp --json --duration 30s --uuid ${LAB_UUID} 2>/dev/null)"; echo "$(seq -s ' ' 1 800) shell-last-line-$((6*7))"; exit\n`,
      },
    });
  }, HOOK_MS);

  test("the shell runs on the console as root, sees PID 1's mounts and the lab CA from the overlay, and leaving it reboots", () => {
    expect(ev(r, "agent.fatal")[0]).toMatchObject({ code: "usage" });
    expect(ev(r, "init.shell")[0]).toMatchObject({ reason: "fatal error: usage" });
    // proc (by the /init shim), then sys, dev, dev/pts, run and tmp by PID 1: six mounts.
    expect(r.lines.some((l) => /^shell-pid-\d+ uid-0 sum-42 ca-1 mounts-6$/.test(l.text))).toBe(true);
    expect(last(r)).toMatchObject({ event: "init.reboot", action: "reboot", reason: "debug shell exited" });
    expect(r.outcome).toBe("reboot");
  });

  test("leaving the shell loses none of its output: the last line, 3 KB written just before `exit`, reached the console whole", () => {
    // The session leader's exit hangs the serial tty up, which dropped what the UART had not sent (up to 4 KiB) until PID 1 drained it first.
    const want = `${Array.from({ length: 800 }, (_, i) => i + 1).join(" ")} shell-last-line-42`;
    expect(r.lines.find((l) => l.text.startsWith("1 2 3 4 5 "))?.text).toBe(want);
    expect(ev(r, "init.shell").at(-1)).toMatchObject({ exitCode: 0 });
  });

  test("metal-hammer lldp in the debug shell sees the lab's leaf pair: leaf01 on eth0 and leaf02 on eth1, each port id SONiC's alias", () => {
    const line = r.lines.find((l) => l.text.startsWith("LLDP-JSON {"));
    expect(line).toBeDefined();
    const text = (line?.text ?? "").slice("LLDP-JSON ".length);
    let parsed: unknown;
    expect(() => (parsed = JSON.parse(text)), `the LLDP-JSON line is not JSON: ${text}`).not.toThrow();
    const j = parsed as { switches: string[]; interfaces: { name: string; neighbours: { systemName: string; portDescription: string; portId: string; portIdIsMac: boolean }[] }[] };
    expect(j.switches).toEqual(["leaf01", "leaf02"]);
    expect(j.interfaces.flatMap((i) => i.neighbours.map((n) => n.portId))).toEqual(["Eth1/1(Port1)", "Eth1/1(Port1)"]);
    expect(j.interfaces.map((i) => [i.name, i.neighbours.map((n) => [n.systemName, n.portDescription, n.portIdIsMac])])).toEqual([
      ["eth0", [["leaf01", "Ethernet0", false]]],
      ["eth1", [["leaf02", "Ethernet0", false]]],
    ]);
  });
});

describe.skipIf(missing.length > 0)(`QEMU lab: no RA on the segment${skipped}`, () => {
  let r: LabResult;
  beforeAll(async () => {
    // Nothing can arrive: the bound is the whole wait, so a short one (the lab default is 30 s).
    r = await boot({ ra: false, netTimeout: "2s", expect: "reboot" });
  }, HOOK_MS);

  test("the agent reports the network timeout and (debug off) reboots, which the lab observes", () => {
    expect(ev(r, "net.timeout")).toHaveLength(1);
    expect(ev(r, "net.ra.seen")).toHaveLength(0);
    expect(ev(r, "agent.fatal")[0]).toMatchObject({ code: "net_timeout", exitCode: 11 });
    expect(last(r)).toMatchObject({ event: "init.reboot", action: "reboot" });
    expect(r.outcome).toBe("reboot");
  });
});

// One boot for two things (each boot costs the suite 10-25 s): the NIC model is e1000 (not the lab's virtio), and
// with METAL_NET_POLICY=all both NICs must be ready.
describe.skipIf(missing.length > 0)(`QEMU lab: two e1000 NICs, one /64 per port, METAL_NET_POLICY=all${skipped}`, () => {
  let r: LabResult;
  beforeAll(async () => {
    r = await boot({ nics: 2, nicModel: "e1000", extraCmdline: ["METAL_NET_POLICY=all"] });
  }, HOOK_MS);

  test("each NIC gets the address of its own segment before the network counts as ready", () => {
    const dad = ev(r, "net.dad.done");
    expect(dad.map((d) => d.address).sort()).toEqual([`fd6d:686c:0:1:${EUI64}/64`, "fd6d:686c:0:2:5054:ff:fe6d:6802/64"]);
    const ready = ev(r, "net.ready")[0];
    expect(ready?.interfaces).toHaveLength(2);
    for (const d of dad) expect(d.ms).toBeLessThanOrEqual(ready?.ms ?? 0);
    // The run goes on to the layout, which the lab's allocation (no filesystemLayout) ends: a reboot.
    expect(ev(r, "agent.fatal").map((f) => f.code)).toEqual(["layout_refused"]);
    expect(r.outcome).toBe("reboot");
  });

  test("the e1000 driver loads and the run goes on to the layout (no filesystemLayout in the lab: a reboot)", () => {
    expect(ev(r, "init.module").map((m) => m.module)).toContain("e1000");
    expect(ev(r, "agent.fatal").map((f) => f.code)).toEqual(["layout_refused"]);
    expect(r.outcome).toBe("reboot");
  });

  test("the e1000 interfaces get their SLAAC addresses too", () => {
    expectOwnSegmentAddresses(r);
  });
});

afterAll(() => {
  // Belt and braces: the lab removes its own namespaces; this only reports a leak.
  const leaked = netnsList()
    .split("\n")
    .filter((l) => /^mhl-/.test(l));
  if (leaked.length > 0) console.warn(`e2e lab: namespaces still present: ${leaked.join(", ")}`);
});
