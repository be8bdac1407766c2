/**
 * The chain lab: a network namespace standing in for the boot VRF. metal-boot's
 * (anycast) address lives on the namespace's loopback; every machine gets its own tap
 * (one switch port = one /64, as MEP-20 carves them) with radvd advertising that
 * port's prefix; QEMU boots the installation ISO on it; tcpdump records each tap.
 *
 *   QEMU (ISO: ISOLINUX -> ipxe.lkrn + chain.ipxe) -- tap <prefix>::1/64, radvd --+
 *                                                                                 +-- boot server [fd00:b007::1]:8080
 *                                                                                 +-- (stand-ins) NTP [fd00:b007::123]:123
 *   QEMU ...                                        -- tap <prefix'>::1/64 -------+
 *
 * A plan over the lab lifecycle (lab/lifecycle/), held open for a test to drive: setUp()
 * runs the rig step (namespace, taps, captures, DNS, radvd: lab/rig/) and the stand-ins
 * step (switches, BMCs, the https stand-ins, the boot server); startMachines() the
 * machines (QEMU); the test collects (requests, captures, the stand-ins' state); and
 * tearDown() runs the one clean-up stack, last started first (QEMU, servers, BMCs, lldpd,
 * captures by PID, then the namespace, which takes the taps with it, then the work dir).
 * Everything is named mhc-<random> / mhct<random><n>.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PartitionInput } from "../ipxe/partitions.ts";
import { routerAddress } from "../ipxe/eui64.ts";
import { waitFor } from "../base/wait.ts";
import { Proc, run } from "../ipxe/lab-process.ts";
import type { LabSwitch } from "../standins/lldpd.ts";
import { startLeaves } from "../lifecycle/leaves.ts";
import { overlayCpio } from "../standins/overlay.ts";
import { standinsArgv, standinsReady, standinsRequests, type StandinsRequest } from "../standins/standins-process.ts";
import { machineSummary } from "../lifecycle/machine-summary.ts";
import type { AgentRecord } from "../base/serial-console.ts";
import { switchName, type LabSwitchOs } from "../rig/plan.ts";
import { parseRequestLog, type RequestLogEntry } from "../ipxe/boot-request-log.ts";
import { ovmfArgs, type Firmware } from "../base/ovmf.ts";
import { tapNicArgs } from "../base/qemu.ts";
import { bmcQemuArgs, LAB_FRU, startBmcSim, type BmcSim } from "../bmc/sim.ts";
import { standinControl } from "../standins/control-client.ts";
import { startLabNtp } from "../standins/ntp.ts";
import type { RadvdPort } from "../rig/radvd-conf.ts";
import { NetnsRig } from "../rig/rig.ts";
import { Lifecycle } from "../lifecycle/lifecycle.ts";
import { startLabDns, type DnsLogEntry, type LabDns } from "../standins/dnsmasq.ts";
import { makeCa, makeServerCert } from "../standins/pki.ts";

export const BOOT_SERVER_ADDR = "fd00:b007::1";
export const BOOT_SERVER_PORT = 8080;
export const BOOT_SERVER_URL = `http://[${BOOT_SERVER_ADDR}]:${BOOT_SERVER_PORT}`;
/** The https stand-ins: metal-boot on STANDINS_PORT, apiserver and image cache on the next two ports. */
export const STANDINS_ADDR = "fd00:b007::2";
export const STANDINS_PORT = 8443;
export const STANDINS_URL = `https://[${STANDINS_ADDR}]:${STANDINS_PORT}`;
/** The NTP server (chronyd, lab/standins/ntp.ts) the stand-in metal-boot names in ntp_servers. */
export const LAB_NTP_ADDR = "fd00:b007::123";
/** DNS server and search domain the RAs advertise: the lab's dnsmasq (lab/standins/dnsmasq.ts) answers there for the lab domain. */
export const LAB_DNS = "fd00:b007::53";
export const LAB_DNS_SEARCH = "chain.lab";
/**
 * The services by name (AAAA only, no A): metal-boot is one host for the boot server
 * (boot.ipxe, kernel, initrd on :8080) and the stand-in metal-boot (config on :8443), as
 * the real metal-boot is one service; the apiserver and the image cache have names of their own.
 */
export const LAB_NAMES = {
  metalBoot: `metal-boot.${LAB_DNS_SEARCH}`,
  apiserver: `apiserver.${LAB_DNS_SEARCH}`,
  images: `images.${LAB_DNS_SEARCH}`,
} as const;

/** The boot server over TLS (metal-boot's https side; the stand-in metal-boot's config is on :8443). */
export const BOOT_TLS_PORT = 443;

/** Where boot.ipxe is, as the ISO chains it: by literal, by name over http, or by name over https. */
export function chainOrigin(names: { readonly tls: boolean } | undefined): string {
  if (!names) return BOOT_SERVER_URL;
  return names.tls ? `https://${LAB_NAMES.metalBoot}` : `http://${LAB_NAMES.metalBoot}:${BOOT_SERVER_PORT}`;
}

/** Where the CA lands in the machine's root file system. */
export const CA_IN_INITRD = "/etc/metal/ca.pem";

const HERE = import.meta.dir;
const BUN = process.execPath;
/** tcpdump filter for every DHCPv4 and DHCPv6 packet. */
export const DHCP_FILTER = "udp port 67 or udp port 68 or udp port 546 or udp port 547";

export interface LabMachine {
  readonly name: string;
  /** The /64 radvd advertises on this machine's port. */
  readonly prefix: string;
  readonly mac: string;
  /** false: no router advertisements on this port (a port outside the boot VRF). */
  readonly ra?: boolean;
  /**
   * More NICs, each on its own port/segment with its own /64 (a machine on a leaf pair:
   * the first NIC on leaf01, these on leaf02, ...). iPXE boots from the first one.
   */
  readonly moreNics?: readonly { readonly prefix: string; readonly mac: string }[];
  /** Raw disk image files attached as virtio disks (vda, vdb, ...): a machine that installs. */
  readonly disks?: readonly string[];
}

export interface ChainLabOptions {
  readonly iso: string;
  readonly machines: readonly LabMachine[];
  /** The boot server's configuration; omit to leave metal-boot down. */
  readonly bootServer?: { readonly partitions: readonly PartitionInput[] };
  readonly memoryMb?: number;
  /**
   * Also run the metal-boot/apiserver/image-cache stand-ins (lab/standins/, https)
   * on STANDINS_ADDR and point every partition's agent at them: METAL_BOOT_URL becomes
   * the stand-in's, and the stand-ins' boot CA goes to the machine as an extra initrd
   * (/etc/metal/ca.pem, METAL_CA on the cmdline), as metal-boot would hand out the
   * installation's CA. `machines`: the uuids the stand-in metal-boot knows, with partition.
   */
  readonly standins?: {
    readonly machines: readonly { uuid: string; partition: string }[];
    /** The stand-in apiserver allocates a machine this long after it registers (its --allocate-after); omit: Wait waits. */
    readonly allocateAfterMs?: number;
    /**
     * The image the stand-in image cache serves (an img.tar.lz4 with its sidecars, lab/images/build.ts);
     * the operator's allocation then carries it and a layout for the machine's first disk (--image).
     */
    readonly image?: string;
    /** With `image`: the layout has an ESP at /boot/efi (the UEFI install, --esp). */
    readonly esp?: boolean;
    /** With `image`: its first GET gets this many bytes, then a trickle that never ends (--image-trickle: a power loss lands mid-stream). */
    readonly imageTrickleBytes?: number;
  };
  /** The machines' NIC: virtio-net (default) or e1000 (iPXE downloads faster with it under TCG). */
  readonly nicModel?: "virtio" | "e1000";
  /**
   * How QEMU boots: the ISO (default); `lkrn`: Debian's ipxe.lkrn with the same chain
   * script as -initrd (what the ISO does, minus SeaBIOS's CD boot and ISOLINUX);
   * `direct`: -kernel/-initrd/-append, no iPXE and no boot server hop at all.
   */
  readonly boot?: { kind: "iso" } | { kind: "lkrn"; lkrn: string; script: string } | { kind: "direct"; kernel: string; initrd: string; append: string };
  /** One lldpd switch per NIC port (lab/standins/lldpd.ts): a machine's first NIC sees leaf01, its second leaf02, ... */
  readonly switches?: boolean;
  /** How the leaves configure lldpd (lab/rig/plan.ts lldpdConf): sonic (default) or cumulus; machine i is on port i of each leaf. */
  readonly switchOs?: LabSwitchOs;
  /**
   * The machines' firmware: `bios` (SeaBIOS, default: the ISO boots ISOLINUX -> ipxe.lkrn)
   * or `uefi` (OVMF, each VM with its own copy of the variable store in the lab's dir:
   * the ISO boots its EFI image -> ipxe.efi -> autoexec.ipxe, the same chain script).
   */
  readonly firmware?: Firmware;
  /**
   * UEFI: the CA (PEM) the machines' firmware trusts for HTTPS boot (OVMF's TlsCaCertificate
   * variable, from fw_cfg: lab/base/ovmf.ts), which the ISO's iPXE trusts for an https:// chain.
   */
  readonly firmwareHttpsCa?: string;
  /**
   * The chain by name (the ISO must chain `chainUrl(names)`): boot.ipxe's kernel and initrd
   * URLs, METAL_BOOT_URL and the stand-ins' URLs name LAB_NAMES, resolved through the lab's
   * DNS server. `tls`: metal-boot's boot side also serves https on 443 with an RSA
   * certificate for its name from a lab CA that UEFI machines' firmware trusts
   * (firmwareHttpsCa, unless given), and boot.ipxe's URLs are https. Omitted: IP literals.
   */
  readonly names?: { readonly tls: boolean };
  /**
   * A BMC per machine (lab/bmc/sim.ts: OpenIPMI's ipmi_sim, a KCS interface in the guest
   * through QEMU's ipmi-bmc-extern, board vendor Supermicro in SMBIOS), its lanplus channel on
   * LAB_BMC_NET.<10+i>:623 in the lab's namespace; with the stand-ins, their
   * SuperUserPassword hands out `superUserPassword`.
   */
  readonly bmc?: { readonly superUserPassword?: string };
  /** The work dir stays after the clean-up (on an interrupt too); tearDown(keepDir) decides otherwise. */
  readonly keepDir?: boolean;
}

/** The BMCs' management network inside the lab's namespace (TEST-NET-1: nothing outside answers). */
export const LAB_BMC_NET = "192.0.2";
/** The factory administrator the lab's BMCs ship with (what the lab itself logs in as). */
export const LAB_BMC_ADMIN = { id: 2, name: "ADMIN", password: "ADMINpass123", privilege: "admin" as const };

export interface RunningMachine extends LabMachine {
  readonly tap: string;
  /** The taps of moreNics, in order. */
  readonly moreTaps: readonly string[];
  readonly pcap: string;
  readonly qemu: Proc;
  readonly started: number;
}

/** What the rig step made: the namespace, each machine's first tap (QEMU starts on these), the switches to start, the DNS server. */
interface ChainRig {
  readonly rig: NetnsRig;
  readonly ports: readonly (LabMachine & { readonly tap: string })[];
  readonly switches: readonly LabSwitch[];
  readonly dns: LabDns;
}

/** What the stand-ins step made. */
interface ChainStandins {
  /** The leaves' ports as metal-core registers them (with switches). */
  readonly switchTable?: string;
  /** The stand-ins' boot CA as an initrd the kernel unpacks (with the stand-ins). */
  readonly caCpio?: string;
  /** The machines' BMCs, by machine index (opts.bmc). */
  readonly bmcs: readonly BmcSim[];
  /** The boot side's TLS (names.tls): a lab CA (RSA: iPXE refuses P-256) and metal-boot's certificate. */
  readonly bootTls?: BootTls;
}

interface BootTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export class ChainLab {
  readonly id = Math.random().toString(36).slice(2, 8).padEnd(6, "0");
  readonly ns = `mhc-${this.id}`;
  readonly dir = mkdtempSync(join(tmpdir(), "mhc-chain-"));
  readonly requestLog = join(this.dir, "requests.jsonl");
  readonly machines: RunningMachine[] = [];
  /** Every process the lab started (their PIDs for the tests; each is also on the clean-up stack). */
  private readonly procs: Proc[] = [];
  /** The one clean-up stack: the work dir, the rig, each process, each BMC; tearDown runs it. */
  private readonly life = new Lifecycle();
  /** tearDown(true), or the option keepDir: the work dir stays (LAB_KEEP=1). */
  private keepDir: boolean;
  /** The rig and stand-ins steps' results, once setUp() made them. */
  private made: { readonly rig: ChainRig; readonly standins: ChainStandins } | undefined;

  private get up(): { readonly rig: ChainRig; readonly standins: ChainStandins } {
    if (!this.made) throw new Error(`chain lab ${this.ns}: not set up (call setUp() first)`);
    return this.made;
  }

  constructor(private readonly opts: ChainLabOptions) {
    this.keepDir = opts.keepDir ?? false;
    this.life.push(`work dir ${this.dir}`, () => {
      if (!this.keepDir) rmSync(this.dir, { recursive: true, force: true });
    });
  }

  /** The tap of a machine's NIC k+1 (moreNics[k]); the first NIC's tap is mhct<id><i>. */
  private moreTap(i: number, k: number): string {
    return `mhct${this.id}${i}n${k + 1}`;
  }

  private nsExec(argv: string[]): string[] {
    return ["ip", "netns", "exec", this.ns, ...argv];
  }

  private spawn(name: string, argv: string[]): Proc {
    const p = new Proc(name, this.nsExec(argv));
    this.procs.push(p);
    try {
      this.life.push(`${name} (PID ${p.pid})`, () => p.stop());
    } catch (e) {
      // Started while an interrupt's clean-up runs: stopped at once, not left behind.
      void p.stop();
      throw e;
    }
    return p;
  }

  /** What clean-up must also undo (a file of the run), on the lab's one stack. */
  onCleanUp(what: string, undo: () => Promise<void> | void): void {
    this.life.push(what, undo);
  }

  /**
   * SIGINT/SIGTERM: while whileRunning() waits, every machine's QEMU is stopped by its PID
   * and the run unwinds (LabInterrupted); otherwise clean-up runs at once and the process
   * exits 130/143. The handlers go with the clean-up.
   */
  catchSignals(say: (line: string) => void): void {
    this.life.catchSignals(say);
  }

  /** Waits for `running` (the machines); an interrupt meanwhile stops their QEMUs, and then this throws LabInterrupted. */
  async whileRunning<T>(running: Promise<T>): Promise<T> {
    const r = await this.life.stoppable(
      () => {
        for (const m of this.machines) void m.qemu.stop(1000);
      },
      () => running,
    );
    this.life.checkInterrupt();
    return r;
  }

  /** The rig and stand-ins steps: namespace, taps, tcpdump, DNS, radvd, then switches, BMCs, stand-ins and (unless omitted) the boot server; does not start QEMU. */
  async setUp(): Promise<void> {
    const rig = await this.life.step("rig", () => this.createRig());
    const standins = await this.life.step("standins", () => this.startAll(rig));
    this.made = { rig, standins };
  }

  /** The rig: the namespace with metal-boot's addresses, a tap (and its capture) per port, the lab's DNS server, radvd. */
  private async createRig(): Promise<ChainRig> {
    const rig = NetnsRig.create(this.ns, this.dir);
    this.life.push(`netns ${this.ns}`, () => rig.cleanup());
    rig.addLoopback(BOOT_SERVER_ADDR);
    // metal-boot's name points here: the boot server answers on it too, next to the stand-ins.
    rig.addLoopback(STANDINS_ADDR);
    const radvdPorts: RadvdPort[] = [];
    const taps: string[] = [];
    const switches: LabSwitch[] = [];
    for (const [i, m] of this.opts.machines.entries()) {
      const tap = `mhct${this.id}${i}`;
      taps.push(tap);
      const ports = [{ tap, prefix: m.prefix }, ...(m.moreNics ?? []).map((n, k) => ({ tap: this.moreTap(i, k), prefix: n.prefix }))];
      for (const [k, port] of ports.entries()) {
        rig.addTap(port.tap, routerAddress(port.prefix));
        if (this.opts.switches) switches.push({ tap: port.tap, hostname: switchName(k), os: this.opts.switchOs ?? "sonic", port: i });
        // RDNSS/DNSSL as a boot VRF's router would send them (the agent's readiness includes DNS).
        if (m.ra !== false) radvdPorts.push({ ifname: port.tap, prefix: port.prefix, rdnss: [LAB_DNS], dnssl: [LAB_DNS_SEARCH] });
      }
    }
    const ports: (LabMachine & { tap: string })[] = [];
    for (const [i, tap] of taps.entries()) {
      const t = this.spawn(`tcpdump-${tap}`, ["tcpdump", "-i", tap, "-n", "-U", "-w", join(this.dir, `${tap}.pcap`)]);
      await waitFor(() => /listening on/.test(t.text()), 10_000, `tcpdump listening on ${tap}`);
      ports.push({ ...(this.opts.machines[i] as LabMachine), tap });
    }
    const dns = await this.startDns(rig);
    if (radvdPorts.length > 0) await rig.startRadvd(radvdPorts);
    return { rig, ports, switches, dns };
  }

  /** The stand-ins: an lldpd per port (and the switch table), the BMCs, the https stand-ins, the boot server. */
  private async startAll({ rig, switches }: ChainRig): Promise<ChainStandins> {
    let switchTable: string | undefined;
    if (switches.length > 0) {
      const dir = join(this.dir, "switches");
      await run(["mkdir", "-m", "0755", dir]);
      // lldpd runs lldpcli as its own user: the work dir must be traversable.
      await run(["chmod", "0755", this.dir]);
      const nsExec = (argv: string[]): string[] => this.nsExec(argv);
      switchTable = await startLeaves({ switches, dir, spawn: (argv, name) => this.spawn(name, argv), nsExec, table: join(this.dir, "switches.json") });
    }
    const bmcs = this.opts.bmc ? await this.startBmcs(rig) : [];
    const caCpio = this.opts.standins ? await this.startStandins(rig, this.opts.standins, switchTable) : undefined;
    const bootTls = this.opts.names?.tls ? this.makeBootTls() : undefined;
    if (this.opts.bootServer) await this.startBootServer(this.opts.bootServer, caCpio, bootTls);
    return { bmcs, ...(switchTable ? { switchTable } : {}), ...(caCpio ? { caCpio } : {}), ...(bootTls ? { bootTls } : {}) };
  }

  /** The lab's query log of its DNS server (dnsmasq --log-queries). */
  readonly dnsLog = join(this.dir, "dnsmasq.log");

  /** dnsmasq at LAB_DNS (the RAs' RDNSS), AAAA records for LAB_NAMES on the services' addresses. */
  private async startDns(rig: NetnsRig): Promise<LabDns> {
    rig.addLoopback(LAB_DNS);
    return await startLabDns(
      {
        listen: LAB_DNS,
        domain: LAB_DNS_SEARCH,
        records: [
          { name: LAB_NAMES.metalBoot, aaaa: [STANDINS_ADDR] },
          { name: LAB_NAMES.apiserver, aaaa: [STANDINS_ADDR] },
          { name: LAB_NAMES.images, aaaa: [STANDINS_ADDR] },
        ],
        logFile: this.dnsLog,
      },
      (argv) => this.spawn("dnsmasq", argv),
    );
  }

  /** The DNS queries the lab's server got so far, with its answers. */
  dnsQueries(): DnsLogEntry[] {
    return this.made?.rig.dns.queries() ?? [];
  }

  /** One ipmi_sim per machine, started (and answering) before its QEMU: QEMU's extern BMC gives up on a closed port. */
  private async startBmcs(rig: NetnsRig): Promise<BmcSim[]> {
    const bmcs: BmcSim[] = [];
    for (const i of this.opts.machines.keys()) {
      const ip = `${LAB_BMC_NET}.${10 + i}`;
      // On the namespace's loopback: the management network is only the lab's (no dummy links on every kernel).
      rig.addLoopback(`${ip}/32`);
      const bmc = await startBmcSim({
        wrap: ["ip", "netns", "exec", this.ns],
        lanAddress: ip,
        lanPort: 623,
        reportedIp: ip,
        reportedMac: `02:00:00:00:0b:${(0x10 + i).toString(16)}`,
        serialPort: 9002 + i,
        users: [LAB_BMC_ADMIN],
        fru: LAB_FRU,
      });
      bmcs.push(bmc);
      this.life.push(`bmc ${ip}`, () => bmc.stop());
    }
    return bmcs;
  }

  /** The https stand-ins (and chronyd beside them); the archive of their boot CA for the machines' initrds. */
  private async startStandins(rig: NetnsRig, s: NonNullable<ChainLabOptions["standins"]>, switchTable: string | undefined): Promise<string> {
    const state = join(this.dir, "standins");
    // The partition's NTP server: chronyd next to the stand-ins, named in metal-boot's ntp_servers.
    rig.addLoopback(LAB_NTP_ADDR);
    await startLabNtp(LAB_NTP_ADDR, this.dir, (ntpArgv) => this.spawn("chronyd", ntpArgv));
    const argv = standinsArgv({ listen: `[${STANDINS_ADDR}]:${STANDINS_PORT}`, stateDir: state, machines: s.machines }, ["--ntp-server", LAB_NTP_ADDR]);
    if (this.opts.names) {
      for (const n of Object.values(LAB_NAMES)) argv.push("--name", n);
      argv.push("--advertise-name", `boot=${LAB_NAMES.metalBoot}`, "--advertise-name", `api=${LAB_NAMES.apiserver}`, "--advertise-name", `images=${LAB_NAMES.images}`);
    }
    if (s.allocateAfterMs !== undefined) argv.push("--allocate-after", String(s.allocateAfterMs));
    if (s.image) argv.push("--image", s.image, ...(s.esp ? ["--esp"] : []), ...(s.imageTrickleBytes !== undefined ? ["--image-trickle", String(s.imageTrickleBytes)] : []));
    const su = this.opts.bmc?.superUserPassword;
    if (su) {
      const file = join(this.dir, "super-user-password");
      writeFileSync(file, su, { mode: 0o600 });
      argv.push("--super-user-password-file", file);
    }
    // The real Register needs neighbours on exactly two switches (switch.go): a chain lab
    // whose machines see fewer lldpd peers drops that one rule.
    if (!this.opts.switches || this.opts.machines.some((m) => (m.moreNics?.length ?? 0) !== 1)) argv.push("--no-switch-rule");
    // Otherwise Register connects each machine to the leaves' ports as the apiserver does.
    else if (switchTable) argv.push("--switches", switchTable);
    const p = this.spawn("standins", argv);
    const ready = await standinsReady(p, state, 30_000, () => p.text());
    // The CA as a cpio archive the kernel unpacks over the initramfs (as the direct lab hands the guest its files).
    const caCpio = join(this.dir, "metal-ca.cpio");
    writeFileSync(caCpio, overlayCpio([{ path: CA_IN_INITRD, data: new Uint8Array(readFileSync(ready.bootCa)) }]));
    return caCpio;
  }

  /** GET /_standin/machines from inside the namespace: what the apiserver stand-in stored. */
  async standinMachines(): Promise<{ registered: Record<string, Record<string, unknown>> }> {
    return (await standinControl((argv) => this.nsExec(argv), join(this.dir, "standins"), "/_standin/machines")) as { registered: Record<string, Record<string, unknown>> };
  }

  /** POST /_standin/allocate from inside the namespace: the operator allocates machine `uuid` (its open Waits get it, later Waits at once). */
  async allocate(uuid: string, allocation: Record<string, unknown>): Promise<void> {
    const r = (await standinControl((argv) => this.nsExec(argv), join(this.dir, "standins"), "/_standin/allocate", { body: { uuid, allocation } })) as {
      ok?: boolean;
      error?: string;
    };
    if (!r.ok) throw new Error(`chain lab: /_standin/allocate ${uuid}: ${r.error ?? JSON.stringify(r)}`);
  }

  /** Logs in to machine i's BMC over lanplus from the lab's namespace, as metal-bmc would (cipher suite 3: suite 0 takes any password). */
  async bmcLogin(i: number, user: string, password: string): Promise<{ ok: boolean; out: string }> {
    const b = this.made?.standins.bmcs[i];
    if (!b) return { ok: false, out: "no BMC" };
    const p = Bun.spawn(this.nsExec([...b.lanplus(user), "user", "list", "1"]), { stdout: "pipe", stderr: "pipe", env: { ...process.env, IPMI_PASSWORD: password } });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { ok: code === 0, out: (out + err).trim() };
  }

  /**
   * The lab summary's lines on machine `uuid` (l../lifecycle/machine-summary.ts): its switch
   * connections (with the stand-ins and a switch table), its events and liveliness at each
   * allocation try, one line per clock query in `agentRecords`.
   */
  summary(uuid: string, agentRecords: readonly (AgentRecord & { readonly ms: number })[]): readonly string[] {
    return machineSummary(join(this.dir, "standins"), uuid, Boolean(this.made?.standins.switchTable && this.opts.standins), agentRecords).lines;
  }

  /** The stand-ins' requests so far (parsed lines of their log; none before they run). */
  standinRequests(): StandinsRequest[] {
    return standinsRequests(join(this.dir, "standins"));
  }

  /** A partition pointed at the stand-ins (when they run): their URL, their CA as an extra initrd. */
  private withStandins(p: PartitionInput, caCpio: string | undefined): PartitionInput {
    if (!caCpio) return p;
    return {
      ...p,
      metalBootUrl: this.opts.names ? `https://${LAB_NAMES.metalBoot}:${STANDINS_PORT}` : STANDINS_URL,
      cmdline: `${p.cmdline ?? ""} METAL_CA=${CA_IN_INITRD}`.trim(),
      extraInitrds: [...(p.extraInitrds ?? []), { name: "metal-ca.cpio", path: caCpio }],
    };
  }

  /** The boot side's TLS: a lab CA (RSA: iPXE refuses P-256) and a certificate for metal-boot's name. */
  private makeBootTls(): BootTls {
    const ca = makeCa(join(this.dir, "boot-tls"), "lab-boot-ca", "rsa");
    makeServerCert(ca, "metal-boot-tls", [], [LAB_NAMES.metalBoot], "rsa");
    return { ca: ca.pem, cert: join(ca.dir, "metal-boot-tls.pem"), key: join(ca.dir, "metal-boot-tls.key") };
  }

  /** The CA the machines' UEFI firmware trusts for HTTPS boot: given, or the lab's boot CA when the chain is https. */
  private firmwareCa(): string | undefined {
    return this.opts.firmwareHttpsCa ?? this.up.standins.bootTls?.ca;
  }

  /** metal-boot's boot side (boot.ipxe, kernel, initrd): every partition pointed at the stand-ins when they run. */
  private async startBootServer(bootServer: NonNullable<ChainLabOptions["bootServer"]>, caCpio: string | undefined, tls: BootTls | undefined): Promise<void> {
    const config = {
      ...(tls ? { tls: { port: BOOT_TLS_PORT, cert: tls.cert, key: tls.key } } : {}),
      // Every address of the namespace: BOOT_SERVER_ADDR (the literal chain) and metal-boot's name (STANDINS_ADDR).
      listen: { host: "::", port: BOOT_SERVER_PORT },
      publicUrl: chainOrigin(this.opts.names),
      partitions: bootServer.partitions.map((p) => this.withStandins(p, caCpio)),
    };
    const path = join(this.dir, "boot-server.json");
    writeFileSync(path, JSON.stringify(config, null, 2));
    const s = this.spawn("boot-server", [BUN, join(HERE, "../ipxe/boot-server.ts"), path, this.requestLog]);
    await waitFor(() => /boot-server listening/.test(s.text()) || s.exitCode !== null, 15_000, "the boot server to listen");
    if (s.exitCode !== null) throw new Error(`boot server exited: ${s.text()}`);
  }

  /** Starts one QEMU per machine (in parallel: each TCG vCPU is one host thread). */
  startMachines(): void {
    if (this.machines.length > 0) return;
    for (const m of this.up.rig.ports) this.machines.push(this.launch(m));
  }

  /**
   * Power loss: machine `name`'s QEMU killed by its PID with SIGKILL (no shutdown, no
   * flush of the guest's page cache: what reached the disk image is what QEMU had
   * written), waited for within `boundMs`. Its tap, disks and BMC stay.
   */
  async powerLoss(name: string, boundMs = 10_000): Promise<RunningMachine> {
    const m = this.machines.findLast((x) => x.name === name);
    if (!m) throw new Error(`chain lab: no machine ${name} started`);
    if (m.qemu.exitCode !== null) throw new Error(`chain lab: machine ${name} already exited (${m.qemu.exitCode})`);
    process.kill(m.qemu.pid, "SIGKILL");
    await waitFor(() => m.qemu.exitCode !== null, boundMs, `QEMU of ${name} (PID ${m.qemu.pid}) to die after SIGKILL`);
    return m;
  }

  /** Powers machine `name` on again after its QEMU ended: a new QEMU on the same tap with the same disk image files (and NVRAM copy); the new run is the machine's last entry in `machines`. */
  powerOn(name: string): RunningMachine {
    const m = this.machines.findLast((x) => x.name === name);
    if (!m) throw new Error(`chain lab: no machine ${name} started`);
    if (m.qemu.exitCode === null) throw new Error(`chain lab: machine ${name} is still running (PID ${m.qemu.pid})`);
    const again = this.launch(m);
    this.machines.push(again);
    return again;
  }

  private launch(m: LabMachine & { tap: string }): RunningMachine {
    const b = this.opts.boot ?? { kind: "iso" };
    const boot =
      b.kind === "lkrn"
        ? ["-kernel", b.lkrn, "-initrd", b.script]
        : b.kind === "direct"
          ? ["-kernel", b.kernel, "-initrd", b.initrd, "-append", b.append]
          : ["-cdrom", this.opts.iso, "-boot", "d"];
    const i = this.opts.machines.findIndex((x) => x.name === m.name);
    const moreTaps = (m.moreNics ?? []).map((_, k) => this.moreTap(i, k));
    const qemu = this.spawn(`qemu-${m.name}`, [
      "qemu-system-x86_64",
      "-cpu",
      "max",
      "-smp",
      "1",
      "-m",
      String(this.opts.memoryMb ?? 512),
      "-nographic",
      "-no-reboot",
      "-nodefaults",
      "-serial",
      "stdio",
      "-vga",
      "none",
      ...(this.opts.firmware === "uefi" ? ovmfArgs(this.dir, m.name, this.firmwareCa() !== undefined ? { httpsCaPem: this.firmwareCa() as string } : {}) : []),
      ...boot,
      ...tapNicArgs(this.opts.nicModel ?? "virtio", [{ tap: m.tap, mac: m.mac }, ...(m.moreNics ?? []).map((n, k) => ({ tap: moreTaps[k] as string, mac: n.mac }))]),
      ...(m.disks ?? []).flatMap((d) => ["-drive", `file=${d},if=virtio,format=raw`]),
      ...bmcQemuArgs(this.up.standins.bmcs[i]),
    ]);
    return { ...m, moreTaps, pcap: join(this.dir, `${m.tap}.pcap`), qemu, started: Date.now() };
  }

  /** PIDs of every process the lab started. */
  pids(): number[] {
    return this.procs.map((p) => p.pid);
  }

  requests(): RequestLogEntry[] {
    try {
      return parseRequestLog(readFileSync(this.requestLog, "utf8"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
  }

  /** Packets in a machine's capture matching a tcpdump filter (call after stopCaptures()). */
  async countPackets(m: RunningMachine, filter: string): Promise<number> {
    const out = await run(["tcpdump", "-r", m.pcap, "-n", filter]);
    return out.split("\n").filter((l) => l.trim() !== "").length;
  }

  /** Ends the captures so their files are complete. */
  async stopCaptures(): Promise<void> {
    for (const p of this.procs.filter((p) => p.name.startsWith("tcpdump-"))) await p.stop();
  }

  /** The clean-up: every process and BMC it started (by PID, last first), radvd and the namespace (which takes the taps with it), the work dir unless kept. Never throws; once. */
  async tearDown(keepDir = this.opts.keepDir ?? false): Promise<void> {
    if (!this.life.cleanedUp) this.keepDir = keepDir;
    // What the steps made stays readable (the DNS log, the switch table) while the dir is kept.
    await this.life.cleanUp();
  }
}
