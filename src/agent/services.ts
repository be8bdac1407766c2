/**
 * The I/O the stages use, built once by the composition root (src/agent/compose.ts)
 * and passed down to every stage. Tests build their own (a sysfs directory, temp
 * files, an exec that records, a fake LLDP session). No configuration fact rides here:
 * a stage reads what the configuration decides (the console, the wipe mode, the NIC
 * selectors, the bounds) from its `config` input, and hands it to the service it calls
 * (test/architecture/config-one-way.test.ts). The HTTP client alone is built from the
 * configuration (its CA bundle, http allowed, retry window): a service setting no
 * stage decides.
 */
import type { LldpInterface, LldpSession } from "../network/lldp/neighbour.ts";
import type { HttpClient } from "../clients/http/http-client.ts";
import type { CarriedInstaller } from "../install/carried-installer.ts";
import type { installOs } from "../install/install.ts";
import type { Inventory } from "../machine/inventory/map.ts";
import type { Logger } from "../platform/log/logger.ts";
import type { Operations } from "../ops/operations/operations.ts";
import type { KexecSys } from "../platform/sys/kexec-syscall.ts";
import type { SecretSet } from "../platform/log/redact.ts";
import type { BmcStages } from "../machine/bmc/in-band.ts";
import type { DiskStages, MountedTarget } from "../machine/disk/machine-disks.ts";
import type { BringupOptions, BringupResult } from "../network/net/bringup.ts";
import type { UplinkTable } from "../network/net/uplink-table.ts";
import type { NetworkSummary } from "../network/net/summary.ts";
import type { NicSelector } from "../config/params.ts";

/** The mounted target root the disks stage built from the allocation's FilesystemLayout. */
export interface TargetRoot extends MountedTarget {
  readonly raidEnabled: boolean;
}

export interface Services {
  readonly log: Logger;
  readonly secrets: SecretSet;
  readonly http: HttpClient;
  /** The sysfs root every stage reads (--sysfs; /sys on a machine). */
  readonly sysRoot: string;
  readonly tokenFile: string;
  readonly handoffFile: string;
  /** Where RA DNS is written (/etc/resolv.conf in the initramfs). */
  readonly resolvConf: string;
  readonly readFile: (path: string) => Promise<Uint8Array>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Replaces the process with the next stage (METAL_HANDOFF=exec:). */
  readonly exec: (path: string, args: readonly string[], env: readonly string[]) => void;
  /** The NICs these selectors pick (Config.nics: METAL_NICS, or the physical ones when empty; network/net/select-links.ts, as bring-up does), for LLDP before bring-up. */
  readonly selectNics: (selectors: readonly NicSelector[]) => readonly LldpInterface[];
  /** Starts the LLDP receiver (src/network/lldp/session.ts startLldp). */
  readonly startLldp: (interfaces: readonly LldpInterface[], systemName: string) => LldpSession;
  readonly bringUp: (opts: BringupOptions) => Promise<BringupResult>;
  /** The uplinks the HTTP client binds to (network/net/uplink-table.ts): the network stage (or a resume) names the NICs to follow. */
  readonly uplinks: Pick<UplinkTable, "follow">;
  readonly inventory: (network: NetworkSummary | undefined) => Promise<Inventory>;
  readonly bmc: BmcStages;
  readonly now: () => Date;
  /** The SMBIOS system manufacturer (sys_vendor under the sysfs root), read when the cmdline names no console (config/console.ts installedConsole). */
  readonly manufacturer: () => string | undefined;
  /** Watchdog, clock sync, remote log, the planned reboot's lines, status: services only, no fact of the flow (built before the logger: its sink feeds the log shipper). */
  readonly ops: Operations;
  readonly disks: DiskStages;
  /** The os-installer this initramfs carries, or why there is none (src/install/carried-installer.ts): run when the image has no installer; named in Register's version. */
  readonly carriedInstaller: CarriedInstaller;
  /** Streams the image onto the target and runs its installer: install/install.ts `installOs` itself (its type is that function's, so a reader goes from here to it); a test gives a fake of the same type. */
  readonly installOs: typeof installOs;
  /** kexec_file_load(2) and reboot(2) (src/platform/sys/kexec-syscall.ts linuxKexec): kexec into the installed OS, the planned reboot. */
  readonly kexecSys: KexecSys;
}

export type { BmcStages, DiskStages };
