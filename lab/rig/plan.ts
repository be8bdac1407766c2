/**
 * The lab as data: names, addresses, what radvd advertises, the guest's cmdline and QEMU's
 * argv, all derived from the options and a random suffix. Pure, so the wiring is
 * unit-tested without root (test/lab/unit/).
 */
import { qemuMachineArgv, tapNicArgs } from "../base/qemu.ts";
import type { RadvdPort } from "./radvd-conf.ts";
export type NicModel = "virtio" | "e1000";

export interface LabOptions {
  /** Unique suffix for every name the lab creates (hex). */
  readonly id: string;
  readonly nics: number;
  readonly nicModel: NicModel;
  /** Start radvd (false: the "no RA on the segment" case). */
  readonly ra: boolean;
  /** One lldpd switch per NIC segment (leaf01, leaf02, ...); false: no LLDP on the segments. */
  readonly lldp: boolean;
  readonly fast: boolean;
  readonly debug: boolean;
  readonly kernel: string;
  readonly initrd: string;
  readonly memoryMiB: number;
  /** SeaBIOS (QEMU's default) or qboot, a minimal firmware made for direct kernel boot. */
  readonly firmware: "seabios" | "qboot";
  /** What the agent does when its flow ends (METAL_DONE). */
  readonly done: "poweroff" | "reboot" | "halt" | "shell";
  readonly netTimeout: string;
  readonly rebootDelay: string;
  /** Words from the lab servers (CA path, URLs), after the defaults. */
  readonly serverCmdline?: readonly string[];
  /** Extra cmdline words, appended last (they win). */
  readonly extraCmdline: readonly string[];
  /** Extra QEMU arguments, appended last: more devices (NICs and storage controllers of other vendors, `-device i6300esb`) or `-rtc base=2001-01-01`. */
  readonly extraQemu?: readonly string[];
}

export const LAB_PREFIX = "mhl";
export const QBOOT_ROM = "/usr/share/qemu/qboot.rom";

/** ULA prefixes inside the lab's own netns: one /64 per NIC ("per switch port"), services on lo. */
export const segmentPrefix = (nic: number): string => `fd6d:686c:0:${nic + 1}::`;
export const SERVICE_ADDR = "fd6d:686c:0:ffff::1";
export const DNS_ADDR = "fd6d:686c:0:ffff::53";
/** The lab's NTP server (chronyd, lab/standins/ntp.ts): metal-boot's ntp_servers. */
export const NTP_ADDR = "fd6d:686c:0:ffff::123";
export const DNS_SEARCH = "lab.metal";
export const METAL_BOOT_PORT = 8443;
/** The machine the lab boots (METAL_UUID) and the stand-in metal-boot knows. */
export const LAB_UUID = "00000000-6d68-6c00-0000-000000000001";

export interface LabNames {
  readonly netns: string;
  readonly taps: readonly string[];
}

export function labNames(o: Pick<LabOptions, "id" | "nics">): LabNames {
  if (!/^[0-9a-f]{1,8}$/.test(o.id)) throw new Error(`lab id ${JSON.stringify(o.id)}: expected 1-8 hex digits`);
  // IFNAMSIZ: 15 characters at most ("mhl" + 8 + "t" + digit = 13).
  return { netns: `${LAB_PREFIX}-${o.id}`, taps: Array.from({ length: o.nics }, (_, i) => `${LAB_PREFIX}${o.id}t${i}`) };
}

export const guestMac = (nic: number): string => `52:54:00:6d:68:${(nic + 1).toString(16).padStart(2, "0")}`;

/** What radvd advertises on each tap (lab/rig/radvd-conf.ts renders it): the tap's /64, RDNSS and DNSSL on the services. */
export function labRadvdPorts(taps: readonly string[]): RadvdPort[] {
  return taps.map((ifname, i) => ({ ifname, prefix: `${segmentPrefix(i)}/64`, rdnss: [DNS_ADDR], dnssl: [DNS_SEARCH] }));
}

export function guestCmdline(o: LabOptions): string {
  const words = [
    "console=ttyS0,115200",
    "panic=-1",
    "quiet",
    "METAL_LOG_FORMAT=json",
    `METAL_BOOT_URL=https://[${SERVICE_ADDR}]:${METAL_BOOT_PORT}`,
    `METAL_DONE=${o.done}`,
    `METAL_REBOOT_DELAY=${o.rebootDelay}`,
    `METAL_NET_TIMEOUT=${o.netTimeout}`,
    `METAL_UUID=${LAB_UUID}`,
    ...(o.fast ? ["METAL_NET_FAST=1"] : []),
    ...(o.debug ? ["DEBUG=1"] : []),
    ...(o.serverCmdline ?? []),
    ...o.extraCmdline,
  ];
  return words.join(" ");
}

export function qemuArgv(o: LabOptions, names: LabNames): string[] {
  const nicArgs = tapNicArgs(
    o.nicModel,
    names.taps.map((tap, i) => ({ tap, mac: guestMac(i) })),
  );
  return [
    ...qemuMachineArgv(o.memoryMiB),
    ...(o.firmware === "qboot" ? ["-bios", QBOOT_ROM] : []),
    "-kernel",
    o.kernel,
    "-initrd",
    o.initrd,
    "-append",
    guestCmdline(o),
    ...nicArgs,
    ...(o.extraQemu ?? []),
  ];
}

/**
 * The switches: each NIC's segment has its own leaf (MEP-20 machines hang on a leaf
 * pair; the apiserver's Register wants neighbours on exactly two distinct switches),
 * played by Debian's lldpd on the tap, announcing `leaf01`, `leaf02`, ... as the
 * switch OS configures lldpd (SWITCH_OS, default sonic):
 * - sonic, as lldpmgrd does (sonic-net/sonic-buildimage@086b03bd
 *   dockers/docker-lldp/lldpd.conf.j2:29-31: system hostname, global `portidsubtype
 *   ifname`; lldpmgrd:147-160: per port `portidsubtype local <alias> description
 *   <description>`): Port ID = the alias `Eth1/1(Port1)` (locally assigned), Port
 *   Description `Ethernet0`, chassis id = the tap's MAC;
 * - cumulus, lldpd's defaults: Port ID = the tap's MAC, Port Description = the port's
 *   name `swp1` (lldpd would send the interface name; the tap is not called swp1).
 * The machine on port `n` of each leaf (the lab's machine is on the first).
 */
export const switchName = (nic: number): string => `leaf${String(nic + 1).padStart(2, "0")}`;

export type LabSwitchOs = "sonic" | "cumulus";
export const SWITCH_OSES: readonly LabSwitchOs[] = ["sonic", "cumulus"];

/** Port `n` (from 0) of a leaf as the switch OS names it: SONiC EthernetN with its alias, Cumulus swpN. */
export function switchPort(os: LabSwitchOs, n = 0): { readonly name: string; readonly alias?: string } {
  // SONiC's 4-lane ports: Ethernet0, Ethernet4, ... with aliases as metal-roles' test data has them (Eth1/1(Port1)).
  return os === "sonic" ? { name: `Ethernet${4 * n}`, alias: `Eth1/${n + 1}(Port${n + 1})` } : { name: `swp${n + 1}` };
}

/** lldpcli commands lldpd runs at start (-O): the switch OS's configuration of `tap` as port `port`, a frame every second (TTL 4 s). */
export function lldpdConf(tap: string, hostname: string, os: LabSwitchOs = "sonic", port = 0): string {
  return lldpdPortsConf(hostname, os, [{ tap, port }]);
}

/** The same for a leaf with many ports (the fleet's: one lldpd on every port of its bridge), a frame every `txIntervalS`. */
export function lldpdPortsConf(hostname: string, os: LabSwitchOs, ports: readonly { readonly tap: string; readonly port: number }[], txIntervalS = 1): string {
  const portLines = ports.map(({ tap, port }) => {
    const p = switchPort(os, port);
    return os === "sonic" ? `configure ports ${tap} lldp portidsubtype local ${p.alias} description ${p.name}` : `configure ports ${tap} lldp portdescription ${p.name}`;
  });
  const lines = [`configure system hostname ${hostname}`, ...(os === "sonic" ? ["configure lldp portidsubtype ifname"] : []), ...portLines];
  return [...lines, `configure lldp tx-interval ${txIntervalS}`].join("\n") + "\n";
}

/**
 * lldpd in the foreground on one tap, chassis id from that tap only (-C: two lldpd in
 * one namespace get distinct chassis ids), with its own control socket (never the
 * host's /run/lldpd.socket). `dir` must be traversable by lldpd's unprivileged user.
 */
export function lldpdArgv(tap: string, dir: string): string[] {
  return withPrivateRun(["lldpd", "-d", "-I", tap, "-C", tap, "-u", `${dir}/lldpd-${tap}.sock`, "-O", `${dir}/lldpd-${tap}.conf`]);
}

/**
 * `argv` in a private mount namespace with its own empty /run (tmpfs): lldpd's privilege
 * separation creates and chroots into /run/lldpd, which would otherwise land on the
 * host. unshare and sh exec in place, so the PID the caller records is lldpd's.
 */
export function withPrivateRun(argv: readonly string[]): string[] {
  return ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs -o mode=0755 lab-run /run && exec "$@"', "sh", ...argv];
}
