/**
 * The dual-homed lab (issue 35), for dual-homed.test.ts and bench/dual-homed.ts: the
 * machine's namespace with two NICs, each on a veth to its own leaf (radvd with its own
 * /64: leaf A 2001:db8:1::/64, leaf B 2001:db8:2::/64; lldpd as leaf01/leaf02), and the
 * strict stand-ins on SERVER in a servers namespace behind both leaves (a transfer /64
 * each way). `prefer` sets which leaf's RA says router preference high and whether that
 * leaf blackholes the servers; `runFlow` runs the whole agent flow (agent-driver, disks
 * never touched) until the wait times out. Everything is removed in `cleanup` (processes
 * by PID, then the namespaces).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nsx, sh } from "../../helpers/netns.ts";
import { REPO } from "../api/agent.ts";
import { runFlowIn, type FlowRun } from "./flow-run.ts";
import { NetnsRig } from "../../../lab/rig/rig.ts";
import { SwitchLab, type Switch } from "../lldp/switches.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { standinControl } from "../../../lab/standins/control-client.ts";

export const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3150";
/** The stand-ins' address, on the servers namespace's loopback, routed by both leaves. */
export const SERVER = "2001:db8:ff::1";
const PORT = 18444;

export type { FlowRun, Log } from "./flow-run.ts";
import type { Log } from "./flow-run.ts";

export class DualHomedLab {
  readonly leafA: Switch;
  readonly leafB: Switch;
  readonly state: string;
  readonly #radvd = new Set<Switch>();

  private constructor(
    readonly s: SwitchLab,
    readonly servers: NetnsRig,
  ) {
    [this.leafA, this.leafB] = s.switches as [Switch, Switch];
    this.state = join(s.lab.dir, "standins");
  }

  /** The lab with the stand-ins answering and lldpd on both leaves (bounded: 30 s for the stand-ins). */
  static async create(o: { readonly standinArgs?: readonly string[] } = {}): Promise<DualHomedLab> {
    const s = new SwitchLab();
    let servers: NetnsRig | undefined;
    try {
      s.addSwitch({ up: false });
      s.addSwitch({ up: false });
      servers = NetnsRig.create(`mhd-${s.lab.id}-srv`, s.lab.dir, { router: false });
      const lab = new DualHomedLab(s, servers);
      await lab.#wire(o.standinArgs ?? []);
      return lab;
    } catch (e) {
      await servers?.cleanup();
      await s.cleanup();
      throw e;
    }
  }

  /** A leaf's number (its /64 and transfer net). */
  n(sw: Switch): 1 | 2 {
    return sw === this.leafA ? 1 : 2;
  }

  async #wire(standinArgs: readonly string[]): Promise<void> {
    const { s, servers } = this;
    servers.addLoopback(SERVER);
    for (const sw of [this.leafA, this.leafB]) {
      const n = this.n(sw);
      const transfer = `fd00:ff:${n}::`;
      const leafSide = `mhd${s.lab.id}l${n}`;
      const srvSide = `mhd${s.lab.id}s${n}`;
      sh("ip", "link", "add", leafSide, "netns", sw.link.routerNs, "type", "veth", "peer", "name", srvSide, "netns", servers.ns);
      nsx(sw.link.routerNs, "ip", "link", "set", leafSide, "up");
      servers.ip("link", "set", srvSide, "up");
      nsx(sw.link.routerNs, "ip", "-6", "addr", "add", `${transfer}1/64`, "dev", leafSide, "nodad");
      servers.addAddr(srvSide, `${transfer}2/64`);
      // The leaf routes its machine-facing /64 (on-link) and the servers; the servers route each /64 back through its leaf.
      nsx(sw.link.routerNs, "ip", "-6", "addr", "add", `2001:db8:${n}::1/64`, "dev", sw.link.routerIf, "nodad");
      nsx(sw.link.routerNs, "ip", "-6", "route", "add", `${SERVER}/128`, "via", `${transfer}2`);
      servers.ip("-6", "route", "add", `2001:db8:${n}::/64`, "via", `${transfer}1`);
    }
    servers.spawn(
      "stand-ins",
      [
        process.execPath,
        join(REPO, "lab/standins/standins-main.ts"),
        "--listen",
        `[${SERVER}]:${PORT}`,
        "--state-dir",
        this.state,
        "--machine",
        `${UUID},fra-equ01`,
        ...standinArgs,
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(join(this.state, "standins.json"), "utf8")).ready === true;
        } catch {
          return false;
        }
      },
      30_000,
      "the stand-ins' standins.json in the servers' netns",
    );
    await s.startLldpd(this.leafA, "leaf01");
    await s.startLldpd(this.leafB, "leaf02");
  }

  /**
   * `preferred`'s RA says router preference high, the other's low; `broken`: the
   * preferred leaf blackholes the servers (else both route them). Then both NICs up and
   * configured before the agent starts (bring-up from NICs down is the flow suite's), so
   * both are uplinks from the first request on. Bounded: the next RA (<= 4 s) and DAD.
   */
  async prefer(preferred: Switch, broken: boolean): Promise<void> {
    await this.configure(preferred, broken ? { broken: "blackhole" } : {});
  }

  /**
   * As `prefer`, with what is wrong with the preferred leaf: `broken` "blackhole" (it
   * drops what goes to the servers, silently) or "no route" (it has none to them: its
   * ICMPv6 no-route is a soft error to a TCP connect, which waits it out as if nothing
   * answered); `lifetimeZero`: its RA says router lifetime 0 (no
   * default router, only its /64), so its NIC has an address and no default route.
   */
  async configure(preferred: Switch, o: { readonly broken?: "blackhole" | "no route"; readonly lifetimeZero?: boolean }): Promise<void> {
    const other = preferred === this.leafA ? this.leafB : this.leafA;
    for (const [sw, fixture] of [
      [preferred, `dual-${this.n(preferred)}-${o.lifetimeZero ? "zero" : "high"}.conf`],
      [other, `dual-${this.n(other)}-low.conf`],
    ] as const) {
      if (this.#radvd.has(sw)) this.s.lab.reloadRadvd(sw.link, fixture);
      else await this.s.lab.radvd(sw.link, fixture);
      this.#radvd.add(sw);
    }
    for (const sw of [preferred, other]) {
      const route = sw === preferred && o.broken === "blackhole" ? ["blackhole", `${SERVER}/128`] : [`${SERVER}/128`, "via", `fd00:ff:${this.n(sw)}::2`];
      nsx(sw.link.routerNs, "ip", "-6", "route", "replace", ...route);
    }
    if (o.broken === "no route") nsx(preferred.link.routerNs, "ip", "-6", "route", "del", `${SERVER}/128`);
    for (const sw of [this.leafA, this.leafB]) nsx(this.s.agentNs, "ip", "link", "set", sw.link.agentIf, "up");
    await waitFor(
      () => {
        const routes = nsx(this.s.agentNs, "ip", "-6", "route", "show", "default");
        const preferredRoute = new RegExp(`dev ${preferred.link.agentIf} .*pref high`).test(routes);
        return (
          (o.lifetimeZero ? !routes.includes(`dev ${preferred.link.agentIf} `) : preferredRoute) &&
          new RegExp(`dev ${other.link.agentIf} .*pref low`).test(routes) &&
          this.addressOn(this.leafA) !== undefined &&
          this.addressOn(this.leafB) !== undefined
        );
      },
      15_000,
      `${preferred.link.agentIf}'s default route ${o.lifetimeZero ? "gone (router lifetime 0)" : "with preference high"}, the other's low, both addresses usable in the agent netns`,
    );
  }

  /** The machine's usable address on a leaf's /64 (EUI-64 of its NIC's MAC). */
  addressOn(sw: Switch): string | undefined {
    const j = JSON.parse(nsx(this.s.agentNs, "ip", "-6", "-j", "addr", "show", "dev", sw.link.agentIf, "scope", "global", "-tentative")) as { addr_info: { local: string }[] }[];
    return j[0]?.addr_info.map((a) => a.local).find((a) => a.startsWith(`2001:db8:${this.n(sw)}:`));
  }

  /** The whole flow in the agent netns on both NICs (bounded: 100 s), with a retry window short enough to show the old failure (15 s); `imageStallTimeout`: the image's stall bound (default 60 s). */
  async runFlow(
    o: { readonly waitTimeout?: string; readonly imageStallTimeout?: string; readonly onLog?: (l: Log) => void; readonly env?: Record<string, string> } = {},
  ): Promise<FlowRun> {
    const { s } = this;
    const run = join(s.lab.dir, `run-${Date.now()}`);
    const cmdline = `METAL_BOOT_URL=https://[${SERVER}]:${PORT}/ METAL_CA=${join(this.state, "pki/boot-ca.pem")} METAL_UUID=${UUID} METAL_NICS=${this.leafA.link.agentIf},${this.leafB.link.agentIf} METAL_NET_TIMEOUT=60s METAL_WAIT_TIMEOUT=${o.waitTimeout ?? "1s"} METAL_LLDP_TIMEOUT=30s METAL_RETRY_WINDOW=15s${o.imageStallTimeout ? ` METAL_IMAGE_STALL_TIMEOUT=${o.imageStallTimeout}` : ""}`;
    return await runFlowIn(s.agentNs, { run, cmdline, resolvConf: join(s.lab.dir, "resolv.conf"), ...(o.onLog ? { onLog: o.onLog } : {}), ...(o.env ? { env: o.env } : {}) });
  }

  /** The stand-ins' request log (none yet before the first request). */
  requests(): { path: string; status: number; source: string }[] {
    const file = join(this.state, "requests.jsonl");
    return (existsSync(file) ? readFileSync(file, "utf8") : "")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { path: string; status: number; source: string });
  }

  /** A leaf stops reaching the servers (blackhole), as when it dies behind a link that stays up. */
  blackhole(sw: Switch): void {
    nsx(sw.link.routerNs, "ip", "-6", "route", "replace", "blackhole", `${SERVER}/128`);
  }

  /** The stand-in apiserver cuts every open Wait stream (its control endpoint, from the servers' namespace). */
  async breakWaits(): Promise<unknown> {
    return await standinControl((argv) => this.servers.exec(argv), this.state, "/_standin/wait-break", { body: {} });
  }

  /** The next image GET trickles again (the lab started with --image-trickle): each cut-download test gets its own. */
  async rearmTrickle(): Promise<unknown> {
    return await standinControl((argv) => this.servers.exec(argv), this.state, "/_standin/image-trickle", { body: {} });
  }

  /** How many BootService/Wait calls reached the stand-in apiserver (recorded on arrival). */
  async waitCalls(): Promise<number> {
    const r = (await standinControl((argv) => this.servers.exec(argv), this.state, "/_standin/calls")) as { calls: { procedure: string }[] };
    return r.calls.filter((c) => c.procedure.endsWith("/Wait")).length;
  }

  /** The servers' namespace, then the switch lab (radvd, lldpd, the stand-ins stopped by PID). Never throws. */
  async cleanup(): Promise<void> {
    await this.servers.cleanup();
    await this.s.cleanup();
  }
}
