/** The real InitSystem: Linux syscalls via src/platform/sys/syscalls.ts, busybox for insmod and the shell. */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readlinkSync } from "node:fs";
import type { DeviceAlias } from "./coldplug.ts";
import { readBoundedTextSync } from "../platform/fs/read-bounded.ts";
import { errnoOfError } from "../platform/sys/errno.ts";
import * as libc from "../platform/sys/syscalls.ts";
import { LINUX_REBOOT_CMD_CAD_OFF, LINUX_REBOOT_CMD_HALT, LINUX_REBOOT_CMD_POWER_OFF, LINUX_REBOOT_CMD_RESTART, reboot } from "../platform/sys/reboot-syscall.ts";
import { readKernelFacts } from "./kernel-facts.ts";
import { BUSYBOX } from "./paths.ts";
import { debugShellArgv } from "./debug-shell.ts";
import { parseProcStat, zombiesOf, zombiesToReap, type ProcStat } from "./reaper.ts";
import type { InitSystem, PciDevice } from "./system.ts";

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

const readTrim = (path: string): string | undefined => {
  try {
    return readBoundedTextSync(path, "sysfs").trim();
  } catch {
    return undefined;
  }
};

/** Every device's modalias under `<sys>/bus/<bus>/devices/` (device paths as seen there). */
export function readModaliases(sys = "/sys"): DeviceAlias[] {
  const out: DeviceAlias[] = [];
  for (const bus of list(`${sys}/bus`)) {
    for (const dev of list(`${sys}/bus/${bus}/devices`)) {
      const device = `${sys}/bus/${bus}/devices/${dev}`;
      const modalias = readTrim(`${device}/modalias`);
      if (modalias) out.push({ device, modalias });
    }
  }
  return out;
}

/** `<sys>/bus/pci/devices` with vendor:device, class and the bound driver (the `driver` link's target name). */
export function readPciDevices(sys = "/sys"): PciDevice[] {
  const dir = `${sys}/bus/pci/devices`;
  return list(dir).map((slot) => {
    const hex = (f: string): string => (readTrim(`${dir}/${slot}/${f}`) ?? "?").replace(/^0x/, "");
    let driver: string | null = null;
    try {
      driver = readlinkSync(`${dir}/${slot}/driver`).split("/").at(-1) ?? null;
    } catch {
      // no driver bound
    }
    return { slot, id: `${hex("vendor")}:${hex("device")}`, class: hex("class"), driver };
  });
}

const SHELL_ENV = { PATH: "/bin:/sbin:/usr/bin:/usr/sbin", HOME: "/root", TERM: "linux", PS1: "metal-hammer debug # " };

export function linuxSystem(): InitSystem {
  /** Children Bun waits for itself; the reaper leaves them alone. */
  const tracked = new Set<number>();
  const spawnTracked = async (argv: string[], opts: { inherit: boolean }): Promise<number> => {
    const p = Bun.spawn(argv, { stdio: opts.inherit ? ["inherit", "inherit", "inherit"] : ["ignore", "inherit", "inherit"], env: SHELL_ENV });
    tracked.add(p.pid);
    try {
      return await p.exited;
    } finally {
      tracked.delete(p.pid);
    }
  };
  return {
    readText: async (path) => {
      try {
        return readBoundedTextSync(path, "sysfs");
      } catch {
        return undefined;
      }
    },
    exists: (path) => existsSync(path),
    kernelFacts: () => readKernelFacts(),
    modaliases: async () => readModaliases(),
    pciDevices: async () => readPciDevices(),
    mkdir: (path, mode) => {
      try {
        mkdirSync(path, { recursive: true, mode });
        return 0;
      } catch (e) {
        return errnoOfError(e);
      }
    },
    mount: (m) => libc.mount(m.source, m.target, m.fstype, m.flags, m.data),
    stdioOpen: () => {
      try {
        for (const fd of [0, 1, 2]) fstatSync(fd);
        return true;
      } catch {
        return false;
      }
    },
    attachConsole: () => libc.attachStdio("/dev/console"),
    finitModule: (path) => finitModuleFile(path),
    insmod: (path) => spawnTracked([BUSYBOX, "insmod", path], { inherit: false }),
    power: (action) => {
      libc.drainConsole();
      libc.sync();
      return reboot(action === "poweroff" ? LINUX_REBOOT_CMD_POWER_OFF : action === "halt" ? LINUX_REBOOT_CMD_HALT : LINUX_REBOOT_CMD_RESTART);
    },
    disableCad: () => void reboot(LINUX_REBOOT_CMD_CAD_OFF),
    shell: () => spawnTracked(debugShellArgv(BUSYBOX), { inherit: true }),
    onSignal: (name, handler) => void process.on(name as NodeJS.Signals, handler),
    startReaper: (onReap) => startReaper(tracked, onReap),
    sleep: (ms) => Bun.sleep(ms),
    now: () => performance.now(),
  };
}

/** finit_module(2) on the module file at `path`: 0, or the errno of the open or of the load. */
function finitModuleFile(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    return errnoOfError(e);
  }
  try {
    return libc.finitModule(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every process's /proc/<pid>/stat that could be read and parsed. */
function readProcStats(): ProcStat[] {
  const procs: ProcStat[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = parseProcStat(readBoundedTextSync(`/proc/${d}/stat`, "sysfs"));
      if (s) procs.push(s);
    } catch {
      // gone between readdir and read
    }
  }
  return procs;
}

/** Reaps, once a second, the zombies of PID 1 seen in two sweeps that Bun does not wait for itself (`tracked`); returns the stop. */
function startReaper(tracked: ReadonlySet<number>, onReap: (pid: number) => void): () => void {
  let earlier = new Set<number>();
  const sweep = (): void => {
    const procs = readProcStats();
    for (const pid of zombiesToReap(procs, process.pid, tracked, earlier)) if (libc.waitpidNoHang(pid) === pid) onReap(pid);
    earlier = zombiesOf(procs, process.pid);
  };
  // A periodic sweep (not a wait): it also keeps PID 1's event loop alive.
  const timer = setInterval(sweep, 1000);
  return () => clearInterval(timer);
}
