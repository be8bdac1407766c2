/**
 * The composition root: the flow's services (agent/services.ts `Services`), built
 * once from the parsed configuration and the command's paths, then passed down. It
 * only wires: what to parse is the CLI's (cli/agent-options.ts), every policy belongs
 * to the library that owns it (the disks guard to machine/disk, the BMC's to
 * machine/bmc, the NIC selection to network/net, the installed console to config).
 * The sysfs root reaches every stage that reads /sys: the machine id (DMI), the NIC
 * selection of LLDP and bring-up, the inventory, the BMC's board vendor, the console
 * default's manufacturer, the disks, and UEFI's firmware/efi in the install stage.
 * The configuration builds the HTTP client only (its trust, http allowed, retry
 * window); every other configuration fact reaches the stages as their `config` input,
 * one way (agent/services.ts).
 */
import type { Config } from "../config/config.ts";
import { HttpClient } from "../clients/http/http-client.ts";
import { DEFAULT_RETRY } from "../clients/http/retry.ts";
import { raNameservers } from "../network/dns/nameservers.ts";
import { Resolver } from "../network/dns/resolver.ts";
import { readCarriedInstaller } from "../install/carried-installer.ts";
import { installOs } from "../install/install.ts";
import { inBandBmc } from "../machine/bmc/in-band.ts";
import { machineDisks } from "../machine/disk/machine-disks.ts";
import { collectInventory, PROC_ROOT } from "../machine/inventory/collect.ts";
import { startLldp } from "../network/lldp/session.ts";
import { bringUp } from "../network/net/bringup.ts";
import { selectNics } from "../network/net/select-links.ts";
import { UplinkTable } from "../network/net/uplink-table.ts";
import { uplinksSection } from "../ops/status/sections.ts";
import { readDmi } from "../platform/fs/dmi.ts";
import { READ_CAPS } from "../platform/fs/read-bounded.ts";
import type { Context } from "../platform/io/context.ts";
import type { Logger } from "../platform/log/logger.ts";
import { linuxKexec } from "../platform/sys/kexec-syscall.ts";
import { versionInfo } from "../platform/version.ts";
import { execNextStage } from "./handoff/exec.ts";
import { RESOLV_CONF } from "./network-stage.ts";
import type { Services } from "./services.ts";
import { Operations } from "../ops/operations/operations.ts";

/** Where the agent's files go and which sysfs it reads (from the command line: --run-dir, --sysfs). */
export interface AgentPaths {
  /** The token file, handoff.json and status.json go here (no trailing slash). */
  readonly runDir: string;
  /** The sysfs root every stage reads (/sys on a machine). */
  readonly sysRoot: string;
}

/** The operations services, built before the logger (its sink feeds the log shipper); status.json in the run dir. */
export function composeOps(ctx: Context, paths: AgentPaths): Operations {
  return new Operations({ secrets: ctx.secrets, statusPath: `${paths.runDir}/status.json` });
}

/** The flow's services, once per command; `over` replaces parts (test drivers). */
export function compose(ctx: Context, paths: AgentPaths, config: Config, log: Logger, over: Partial<Services> = {}): Services {
  const { runDir, sysRoot } = paths;
  const ops = over.ops ?? composeOps(ctx, paths);
  // The HTTP client binds every connection to one of these once the network stage named the NICs (docs/network.md "Uplinks");
  // status.json shows each uplink's state and last error.
  const uplinks = new UplinkTable({
    log,
    // An uplink dropped: the connections through it closed now (a held Wait reconnects through another); status.json again.
    onChange: () => {
      http.uplinks.closeGone();
      ops.refreshUplinks();
    },
  });
  const http: HttpClient =
    over.http ??
    new HttpClient({
      caBundle: config.caBundle,
      allowHttp: config.allowHttp,
      log,
      retry: { ...DEFAULT_RETRY, totalMs: config.retryWindowMs },
      uplinks,
      onUplinkOutcome: () => ops.refreshUplinks(),
      // Names through the RAs' DNS servers only: the ones the network stage wrote to resolv.conf.
      resolver: new Resolver({ servers: () => raNameservers(RESOLV_CONF) }),
    });
  ops.trackUplinks(() => uplinksSection(uplinks.facts(), http.uplinks.outcomes(), http.uplinks.lastErrors(), http.uplinks.preferred));
  return {
    log,
    secrets: ctx.secrets,
    http,
    uplinks,
    sysRoot,
    tokenFile: `${runDir}/token`,
    handoffFile: `${runDir}/handoff.json`,
    resolvConf: RESOLV_CONF,
    readFile: (p) => ctx.io.readFile(p, READ_CAPS.sysfs),
    env: ctx.io.env,
    exec: execNextStage,
    selectNics: (selectors) => selectNics({ selectors, sysfsRoot: sysRoot, log }),
    startLldp: (interfaces, systemName) => startLldp({ interfaces, systemName, log }),
    bringUp,
    inventory: (network) => collectInventory({ sysRoot, procRoot: PROC_ROOT }, network),
    bmc: inBandBmc({ sysRoot, secrets: ctx.secrets }),
    now: () => new Date(),
    manufacturer: () => readDmi(sysRoot, "sys_vendor"),
    ops,
    disks: machineDisks({ sysRoot, version: versionInfo().version }),
    carriedInstaller: readCarriedInstaller(),
    installOs,
    kexecSys: linuxKexec,
    ...over,
  };
}
