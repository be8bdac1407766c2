/**
 * The BMC of this machine, in-band through Debian's ipmitool (discover.ts): read it and
 * write the metal user before Register; set the superuser's password after it. Users
 * are written only from the agent's initramfs (platform/fs/initramfs-root.ts), like the
 * disks: a `run` on a test host must never change its BMC.
 */
import { readRootFs, type RootFs } from "../../platform/fs/initramfs-root.ts";
import { bmcDevicePresent } from "./device.ts";
import { discoverBmc, writeSuperUser, type BmcDeps, type BmcOutcome } from "./discover.ts";
import { inBandIpmitool } from "./ipmitool.ts";
import type { BmcVendor } from "./vendor.ts";

/** Never throws for a failing BMC: what did not work is in the notes. */
export interface BmcStages {
  readonly discover: () => Promise<BmcOutcome>;
  readonly superUser: (vendor: BmcVendor, password: string) => Promise<{ readonly ok: boolean; readonly notes: readonly string[] }>;
}

export interface InBandOptions {
  /** The sysfs root the board vendor is read from (class/dmi/id/board_vendor). */
  readonly sysRoot: string;
  /** The log's secret set: every password is added before it reaches the BMC. */
  readonly secrets: { add(v: string): void };
  /** Where /dev/ipmi<N> is looked for (default /dev). */
  readonly devRoot?: string;
  /** What "/" is (default: read from /proc/self/mounts). */
  readonly rootFs?: () => RootFs;
}

export function inBandBmc(o: InBandOptions): BmcStages {
  const rootFs = o.rootFs ?? readRootFs;
  const deps = (): BmcDeps => ({
    tool: inBandIpmitool(),
    random: (n) => crypto.getRandomValues(new Uint8Array(n)),
    addSecret: (v) => o.secrets.add(v),
    sleep: (ms) => Bun.sleep(ms),
    jitter: Math.random,
  });
  return {
    discover: async () => {
      const present = await bmcDevicePresent(o.devRoot ?? "/dev");
      const vendor = await Bun.file(`${o.sysRoot}/class/dmi/id/board_vendor`)
        .text()
        .catch(() => "");
      return await discoverBmc(deps(), present, vendor, rootFs().initramfs);
    },
    superUser: async (vendor, password) => {
      if (!rootFs().initramfs) return { ok: false, notes: ["not running from the agent's initramfs: BMC users are not written"] };
      return await writeSuperUser(deps(), vendor, password);
    },
  };
}
