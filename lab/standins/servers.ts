/**
 * The lab's servers: processes started inside the lab netns before QEMU, listening
 * on IPv6 only. Each entry is the hook for one server: its argv, the TCP port the lab
 * waits for, and what it gives the guest once it is up (files added to the initramfs
 * through a small overlay archive, cmdline words). The default is the stand-ins
 * (lab/standins/: metal-boot, apiserver, image cache, DNS); the placeholder
 * HTTP server is kept for runs that need no real servers (`--servers placeholder`).
 */
import { readFileSync } from "node:fs";
import { standinsArgv } from "./standins-process.ts";
import { DNS_ADDR, DNS_SEARCH, LAB_UUID, METAL_BOOT_PORT } from "../rig/plan.ts";

export interface LabServerEnv {
  /** The services address (on the netns loopback, routed to the guest through the RA's default route). */
  readonly addr: string;
  /** Directory for this run's files (logs, keys). */
  readonly dir: string;
  /** Have the stand-in apiserver allocate the lab machine after it registers (else its wait stage waits). */
  readonly allocate: boolean;
  /** How many distinct LLDP switches (lldpd) the lab machine's NICs see. */
  readonly switches: number;
  /** The switch table file for the stand-in apiserver (lab/standins/lldpd.ts switchSpecs), when the lab runs switches. */
  readonly switchTable?: string;
  /** The lab's NTP server (chronyd, lab/standins/ntp.ts), for metal-boot's ntp_servers; undefined: none. */
  readonly ntp?: string | undefined;
}

export interface GuestFile {
  /** Path inside the guest, e.g. "etc/metal/lab-ca.pem". */
  readonly path: string;
  readonly data: Uint8Array;
}

export interface LabServer {
  readonly name: string;
  readonly argv: readonly string[];
  /** TCP port it listens on; the lab waits for it (from /proc/<pid>/net/tcp6) before booting. */
  readonly port: number;
  /** Files of the server's log (request log), read back into the result. */
  readonly logs: readonly string[];
  /** Read once the server listens: files for the guest and cmdline words (they override the lab's defaults). */
  guest?(): { files: GuestFile[]; cmdline: string[] };
}

const BUN = process.execPath;
export const LAB_CA_PATH = "etc/metal/lab-ca.pem";
/** The name the DNS stand-in answers (AAAA -> metal-boot's address). */
export const METAL_BOOT_NAME = `boot.${DNS_SEARCH}`;

export function standinServers(env: LabServerEnv): LabServer[] {
  const state = `${env.dir}/standins`;
  return [
    {
      name: "standins",
      argv: standinsArgv({ listen: `[${env.addr}]:${METAL_BOOT_PORT}`, stateDir: state, machines: [{ uuid: LAB_UUID, partition: "lab" }] }, [
        "--name",
        METAL_BOOT_NAME,
        "--dns",
        `[${DNS_ADDR}]:53`,
        // The lab's operator: allocate the machine shortly after it registers (ALLOCATE=0: never).
        ...(env.allocate ? ["--allocate-after", "300"] : []),
        // The real Register needs neighbours on exactly two switches (switch.go); a lab run
        // with fewer lldpd peers (NICS=1, LLDP=0) says so by dropping that one rule.
        ...(env.switches === 2 ? [] : ["--no-switch-rule"]),
        // Register connects the machine to the leaves' ports as the apiserver does (DIR/connections.json).
        ...(env.switchTable ? ["--switches", env.switchTable] : []),
        ...(env.ntp ? ["--ntp-server", env.ntp] : []),
      ]),
      port: METAL_BOOT_PORT,
      logs: [`${state}/requests.jsonl`],
      guest: () => ({
        files: [{ path: LAB_CA_PATH, data: new Uint8Array(readFileSync(`${state}/pki/boot-ca.pem`)) }],
        cmdline: [`METAL_CA=/${LAB_CA_PATH}`, `METAL_BOOT_URL=https://[${env.addr}]:${METAL_BOOT_PORT}`],
      }),
    },
  ];
}

/** The stand-ins with more flags of the run's own (an install run's `--image`, `--esp`, `--oci-layout`). */
export function standinServersWith(more: readonly string[]): (env: LabServerEnv) => LabServer[] {
  return (env) => standinServers(env).map((srv) => (srv.name === "standins" ? { ...srv, argv: [...srv.argv, ...more] } : srv));
}

/** PLACEHOLDER server: answers 503 and logs requests; for runs that need no real servers. */
export function placeholderServers(env: LabServerEnv): LabServer[] {
  const log = `${env.dir}/servers/placeholder.log`;
  return [
    {
      name: "placeholder",
      argv: [BUN, `${import.meta.dir}/placeholder-server.ts`, "--addr", env.addr, "--port", String(METAL_BOOT_PORT), "--name", "placeholder"],
      port: METAL_BOOT_PORT,
      logs: [log],
      guest: () => ({ files: [], cmdline: [`METAL_BOOT_URL=http://[${env.addr}]:${METAL_BOOT_PORT}`, "METAL_ALLOW_HTTP=1"] }),
    },
  ];
}

export const SERVER_SETS = { standins: standinServers, placeholder: placeholderServers, none: (): LabServer[] => [] } as const;
export type ServerSet = keyof typeof SERVER_SETS;
