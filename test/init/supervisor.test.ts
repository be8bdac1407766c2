import { describe, expect, test } from "bun:test";
import { AgentError } from "../../src/platform/errors.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import type { Mount } from "../../src/init/mounts.ts";
import type { InitOptions, PowerAction } from "../../src/init/policy.ts";
import { superviseInit } from "../../src/init/supervisor.ts";
import { waitFor } from "../../lab/base/wait.ts";
import type { InitSystem } from "../../src/init/system.ts";
import { BUILTIN_FRAGMENT_SOURCE, BUILTIN_FRAGMENT_TEXT } from "../../src/kernel/kconfig/builtin-fragment.ts";
import { parseFragment } from "../../src/kernel/kconfig/fragment.ts";

/** A .config that sets every option of the embedded fragment as the fragment does: it meets the fragment. */
const MEETS_FRAGMENT = parseFragment(BUILTIN_FRAGMENT_TEXT, BUILTIN_FRAGMENT_SOURCE)
  .entries.map((e) => (e.value === "n" ? `# CONFIG_${e.name} is not set` : `CONFIG_${e.name}=${e.value}`))
  .join("\n");

const KVER = "6.1.0-57-amd64";
const DIR = `/lib/modules/${KVER}`;

interface Fake extends InitSystem {
  calls: string[];
  signals: Map<string, () => void>;
}

const PCI_VIRTIO_NET = { device: "/sys/bus/pci/devices/0000:00:02.0", modalias: "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00" };
const VIRTIO_NET_DEV = { device: "/sys/bus/virtio/devices/virtio0", modalias: "virtio:d00000001v00001AF4" };

/**
 * A machine with one virtio-net NIC: the PCI device is there from the start, the
 * virtio device appears once virtio_pci is loaded (as on Linux).
 */
function fakeSystem(over: { files?: Record<string, string>; finit?: (p: string) => number; insmod?: number; powerErr?: number; present?: string[] } = {}): Fake {
  const files: Record<string, string> = {
    "/proc/self/mounts": "proc /proc proc rw 0 0\n",
    "/proc/sys/kernel/osrelease": `${KVER}\n`,
    [`${DIR}/modules.dep`]: [
      "kernel/virtio_ring.ko:",
      "kernel/virtio.ko: kernel/virtio_ring.ko",
      "kernel/virtio_pci.ko: kernel/virtio.ko kernel/virtio_ring.ko",
      "kernel/virtio_net.ko: kernel/virtio.ko kernel/virtio_ring.ko",
      "kernel/ext4.ko:",
      "kernel/e1000e.ko:",
      "kernel/ice.ko:",
    ].join("\n"),
    [`${DIR}/modules.load`]: "",
    [`${DIR}/modules.alias`]:
      "alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci\nalias virtio:d00000001v* virtio_net\nalias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e\nalias pci:v00008086d00001591sv*sd*bc*sc*i* ice\n",
    [`${DIR}/modules.firmware`]: "ice: intel/ice/ddp/ice.pkg\n",
    [`/boot/config-${KVER}`]: MEETS_FRAGMENT,
    ...over.files,
  };
  const calls: string[] = [];
  const signals = new Map<string, () => void>();
  return {
    calls,
    signals,
    readText: async (p) => files[p],
    // The image carries KVER's tree (the module files modules.dep names) and its config at /boot/config-KVER.
    kernelFacts: () => {
      const release = files["/proc/sys/kernel/osrelease"]?.trim();
      const config = files[`/boot/config-${release}`];
      return {
        release,
        moduleTrees: [KVER],
        moduleDir: `/lib/modules/${release}`,
        moduleFiles: release === KVER ? (files[`${DIR}/modules.dep`] ?? "").split("\n").map((l) => l.split(":")[0] as string) : undefined,
        searched: ["/proc/config.gz", `/boot/config-${release}`],
        config: config === undefined ? undefined : { source: `/boot/config-${release}`, text: config },
      };
    },
    exists: (p) => (over.present ?? []).includes(p),
    modaliases: async () => (calls.some((c) => c.endsWith("virtio_pci.ko")) ? [PCI_VIRTIO_NET, VIRTIO_NET_DEV] : [PCI_VIRTIO_NET]),
    pciDevices: async () => [
      { slot: "0000:00:00.0", id: "8086:29c0", class: "060000", driver: null },
      { slot: "0000:00:02.0", id: "1af4:1000", class: "020000", driver: calls.some((c) => c.endsWith("virtio_pci.ko")) ? "virtio-pci" : null },
    ],
    mkdir: () => 0,
    mount: (m: Mount) => (calls.push(`mount ${m.fstype} ${m.target}`), 0),
    stdioOpen: () => true,
    attachConsole: () => (calls.push("console"), 0),
    finitModule: (p) => (calls.push(`finit ${p.slice(DIR.length + 1)}`), over.finit?.(p) ?? 0),
    insmod: async (p) => (calls.push(`insmod ${p.slice(DIR.length + 1)}`), over.insmod ?? 0),
    power: (a: PowerAction) => (calls.push(`power ${a}`), over.powerErr ?? 0),
    disableCad: () => void calls.push("cad off"),
    shell: async () => (calls.push("shell"), 0),
    onSignal: (n, h) => void signals.set(n, h),
    startReaper: () => (calls.push("reaper"), () => {}),
    sleep: async (ms) => void calls.push(`sleep ${ms}`),
    now: () => 0,
  };
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() });
  return { log, events: () => lines.map((l) => l.event), lines };
}

const OPTS: InitOptions = { debug: false, done: "poweroff", rebootDelayMs: 1000 };

describe("init supervisor", () => {
  test("mounts what is missing, loads the modules the devices ask for in dependency order, runs the flow, then powers off", async () => {
    const sys = fakeSystem();
    const { log } = capture();
    let flowRan = false;
    const r = await superviseInit(sys, log, OPTS, async () => {
      flowRan = true;
    });
    expect(flowRan).toBe(true);
    expect(r.outcome).toEqual({ kind: "done" });
    expect(sys.calls).toEqual([
      "mount sysfs /sys",
      "mount devtmpfs /dev",
      "mount devpts /dev/pts",
      "mount tmpfs /run",
      "mount tmpfs /tmp",
      "cad off",
      "reaper",
      "finit kernel/virtio_ring.ko",
      "finit kernel/virtio.ko",
      "finit kernel/virtio_pci.ko",
      "finit kernel/virtio_net.ko",
      "power poweroff",
    ]);
  });

  test("each load is logged with its reason, and the devices line names every PCI device's driver", async () => {
    const sys = fakeSystem({ files: { [`${DIR}/modules.load`]: "ext4\n" } });
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    const loads = lines.filter((l) => l.event === "init.module").map((l) => [l.module, l.for]);
    expect(loads).toEqual([
      ["ext4", "boot list"],
      ["virtio_ring", "dependency of virtio_pci"],
      ["virtio", "dependency of virtio_pci"],
      ["virtio_pci", PCI_VIRTIO_NET.device],
      ["virtio_net", VIRTIO_NET_DEV.device],
    ]);
    expect(lines.find((l) => l.event === "init.devices")).toMatchObject({
      loaded: ["ext4", "virtio_ring", "virtio", "virtio_pci", "virtio_net"],
      failed: [],
      // The host bridge (class 06, no driver) is left out; the NIC is there with its driver.
      pci: [{ slot: "0000:00:02.0", id: "1af4:1000", class: "020000", driver: "virtio-pci" }],
      pciTotal: 2,
    });
  });

  test("a driver whose firmware is not in the image is a warning naming module and file", async () => {
    const ice = { device: "/sys/bus/pci/devices/0000:01:00.0", modalias: "pci:v00008086d00001591sv00008086sd00000001bc02sc00i00" };
    const sys = fakeSystem();
    sys.modaliases = async () => [ice];
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(lines.filter((l) => l.event === "init.firmware")).toMatchObject([{ module: "ice", firmware: "intel/ice/ddp/ice.pkg", level: 40 }]);
    const withFw = fakeSystem({ present: ["/lib/firmware/intel/ice/ddp/ice.pkg"] });
    withFw.modaliases = async () => [ice];
    const quiet = capture();
    await superviseInit(withFw, quiet.log, OPTS, async () => {});
    expect(quiet.lines.filter((l) => l.event === "init.firmware")).toEqual([]);
    expect(withFw.calls).toContain("finit kernel/ice.ko");
  });

  test("a fatal flow error is logged with its code and reboots after the delay", async () => {
    const sys = fakeSystem();
    const { log, lines } = capture();
    const r = await superviseInit(sys, log, OPTS, async () => {
      throw new AgentError("net_timeout", "no router advertisement on eth0 within 5s");
    });
    expect(r.action).toEqual({ kind: "power", action: "reboot", delayMs: 1000, reason: "fatal error: net_timeout" });
    expect(sys.calls.slice(-2)).toEqual(["sleep 1000", "power reboot"]);
    expect(lines.find((l) => l.event === "agent.fatal")).toMatchObject({ code: "net_timeout", exitCode: 11, msg: "no router advertisement on eth0 within 5s" });
    expect(lines.at(-1)).toMatchObject({ event: "init.reboot", action: "reboot", msg: "reboot now" });
  });

  test("with DEBUG a fatal error opens the shell, and leaving it reboots", async () => {
    const sys = fakeSystem();
    await superviseInit(sys, capture().log, { ...OPTS, debug: true }, async () => {
      throw new Error("boom");
    });
    expect(sys.calls.slice(-2)).toEqual(["shell", "power reboot"]);
  });

  test("a module finit_module refuses is retried with busybox insmod; one that fails both is logged and skipped", async () => {
    const sys = fakeSystem({ finit: (p) => (p.endsWith("virtio.ko") ? 8 : 0), insmod: 1 });
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(sys.calls).toContain("insmod kernel/virtio.ko");
    expect(sys.calls).toContain("finit kernel/virtio_net.ko");
    expect(lines.find((l) => l.event === "init.module" && l.module === "virtio")).toMatchObject({
      finitError: "ENOEXEC",
      insmodExit: 1,
      level: 40,
      msg: "cannot load module virtio",
    });
    expect(lines.find((l) => l.event === "init.devices")).toMatchObject({ failed: ["virtio"] });
  });

  test("a module refused with ENODEV (nothing to drive here) is logged as absent at info, without insmod, and is no failure", async () => {
    const sys = fakeSystem({ files: { [`${DIR}/modules.load`]: "ext4\n" }, finit: (p) => (p.endsWith("ext4.ko") ? 19 : 0) });
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(sys.calls.some((c) => c.startsWith("insmod"))).toBe(false);
    expect(lines.find((l) => l.event === "init.module" && l.module === "ext4")).toMatchObject({ level: 30, finitError: "ENODEV", for: "boot list" });
    expect(lines.find((l) => l.event === "init.devices")).toMatchObject({ failed: [], absent: ["ext4"] });
  });

  test("a module whose table entries are inconsistent is skipped as failed; the other devices still get their drivers", async () => {
    const e1000e = { device: "/sys/bus/pci/devices/0000:00:03.0", modalias: "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00" };
    const sys = fakeSystem({
      files: {
        [`${DIR}/modules.alias`]: "alias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e\nalias pci:v00001AF4d*sv*sd*bc*sc*i* nosuch\nalias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci\n",
      },
    });
    sys.modaliases = async () => [PCI_VIRTIO_NET, e1000e];
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(sys.calls).toContain("finit kernel/virtio_pci.ko");
    expect(sys.calls).toContain("finit kernel/e1000e.ko");
    expect(lines.find((l) => l.event === "init.module" && l.module === "nosuch")).toMatchObject({ level: 40, msg: "module tables inconsistent for nosuch: skipping it" });
    expect(lines.find((l) => l.event === "init.devices")).toMatchObject({ failed: ["nosuch"] });
  });

  test("a module tree the initramfs build did not write (no modules.load: a host, not our image) is left alone", async () => {
    const sys = fakeSystem();
    const files = { ...sys };
    sys.readText = async (p) => (p.endsWith("/modules.load") ? undefined : files.readText(p));
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(sys.calls.some((c) => c.startsWith("finit"))).toBe(false);
    expect(lines.find((l) => l.event === "init.module")?.msg).toMatch(/no modules for kernel 6.1.0-57-amd64 in the image/);
  });

  test("an image without modules for the running kernel loads none and says why", async () => {
    const sys = fakeSystem({ files: { "/proc/sys/kernel/osrelease": "6.18.0-other\n" } });
    const { log, lines } = capture();
    let flowRan = false;
    await superviseInit(sys, log, OPTS, async () => void (flowRan = true));
    expect(sys.calls.some((c) => c.startsWith("finit"))).toBe(false);
    expect(lines.find((l) => l.event === "init.module")?.msg).toMatch(/no modules for kernel 6.18.0-other/);
    // Said first, as an error naming both releases; and the flow still ran (not fatal).
    expect(lines.find((l) => l.event === "init.kernel")).toMatchObject({
      level: 50,
      release: "6.18.0-other",
      moduleTrees: [KVER],
      msg: `running kernel 6.18.0-other, the initramfs carries modules for ${KVER}: no driver can be loaded; rebuild the initramfs for 6.18.0-other`,
    });
    expect(lines.find((l) => l.event === "init.kconfig")).toMatchObject({ level: 40, outcome: "no-config" });
    expect(flowRan).toBe(true);
  });

  test("before any module loads, the running kernel's config is checked against the embedded fragment: one init.kconfig line", async () => {
    const sys = fakeSystem();
    const { log, lines, events } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    const kc = lines.filter((l) => l.event === "init.kconfig");
    expect(kc).toHaveLength(1);
    expect(kc[0]).toMatchObject({ level: 30, outcome: "ok", release: KVER, config: `/boot/config-${KVER}`, failed: [], modules: { source: DIR, count: 7 } });
    expect(typeof kc[0]?.ms).toBe("number");
    expect(events().indexOf("init.kconfig")).toBeLessThan(events().indexOf("init.module"));
    expect(events()).not.toContain("init.kernel");
  });

  test("a config that misses a required option is an error line naming it, and the boot goes on", async () => {
    const sys = fakeSystem({ files: { [`/boot/config-${KVER}`]: MEETS_FRAGMENT.replace("CONFIG_IPV6=y", "CONFIG_IPV6=m") } });
    const { log, lines } = capture();
    let flowRan = false;
    await superviseInit(sys, log, OPTS, async () => void (flowRan = true));
    const kc = lines.find((l) => l.event === "init.kconfig");
    expect(kc).toMatchObject({ level: 50, outcome: "fail", failed: ["IPV6"] });
    expect(String(kc?.msg)).toStartWith(
      `kernel ${KVER}: config /boot/config-${KVER} fails kernel-config/metal-hammer.config: 1 requirement not met: IPV6 is a module (=m): it must be built in, a module loads too late; `,
    );
    expect(flowRan).toBe(true);
    expect(sys.calls).toContain("finit kernel/virtio_net.ko");
  });

  test("SIGUSR2 powers off, SIGHUP is ignored", async () => {
    const sys = fakeSystem();
    const { log } = capture();
    let release: (() => void) | undefined;
    const done = superviseInit(sys, log, OPTS, () => new Promise<void>((r) => (release = r)));
    await waitFor(() => release !== undefined, 2000, "the flow to start", 1);
    sys.signals.get("SIGHUP")?.();
    sys.signals.get("SIGUSR2")?.();
    expect(sys.calls.filter((c) => c.startsWith("power"))).toEqual(["power poweroff"]);
    release?.();
    await done;
  });

  test("a signal during the reboot delay acts at once instead of waiting for the delay", async () => {
    const sys = fakeSystem();
    let delaying = false;
    sys.sleep = () => ((delaying = true), new Promise(() => {}));
    const { log } = capture();
    void superviseInit(sys, log, { ...OPTS, rebootDelayMs: 60_000 }, async () => {
      throw new AgentError("net_timeout", "no RA");
    });
    await waitFor(() => delaying, 2000, "the reboot delay to start", 1);
    expect(sys.calls.filter((c) => c.startsWith("power"))).toEqual([]);
    sys.signals.get("SIGUSR2")?.();
    expect(sys.calls.filter((c) => c.startsWith("power"))).toEqual(["power poweroff"]);
  });

  test("when reboot(2) fails PID 1 logs it at fatal and stays up", async () => {
    const sys = fakeSystem({ powerErr: 1 });
    const { log, lines } = capture();
    await superviseInit(sys, log, OPTS, async () => {});
    expect(lines.at(-1)).toMatchObject({ event: "init.reboot", error: "EPERM", level: 60 });
  });
});
