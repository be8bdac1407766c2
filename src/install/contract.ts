/**
 * The files metal-hammer hands the image's installer (pure builders; write-contract.ts
 * writes them):
 * - /etc/metal/machine-details.yaml: os-installer's MachineDetails
 *   (metal-stack/os-installer@7ea1c98 api/v1/api.go:46 MachineDetails: yaml `id`, `nics`, `password`,
 *   `console`, `raidenabled`, `root_uuid`). `nics` are apiv2.MachineNic structs that
 *   go-yaml encodes under their lower-cased Go field names (no yaml tags):
 *   mac, name, identifier, vendor, model, speed, neighbors, hostname
 *   (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto:484 MachineNic).
 * - /etc/metal/machine-allocation.yaml: the allocation exactly as the apiserver sent it
 *   (the Wait message's JSON, fields newer than our proto/ kept), as JSON: JSON is YAML,
 *   and os-installer reads the file with protoyaml (metal-stack/os-installer@7ea1c98
 *   pkg/installer/config.go:33), which takes protojson names and values. protoyaml
 *   refuses fields its own metal-stack/api does not know (buf.build/go/protoyaml v0.7.0
 *   decode.go:768, no DiscardUnknown there): an installer older than the apiserver
 *   cannot read an allocation that uses a newer field (docs/install.md).
 * - /etc/metal/install.yaml: the legacy InstallerConfig for older images
 *   (metal-stack/os-installer@7ea1c98 api/v1/legacy.go:13 InstallerConfig), filled as metal-hammer's
 *   cmd/install.go writeInstallerConfig does.
 * - /etc/metal/userdata: the allocation's user data, as metal-hammer's writeUserData.
 * - /etc/lvm/lvmlocal.conf: LVM without udev (lvmlocal.ts), only into an image that has
 *   /etc/lvm, as metal-hammer's writeLVMLocalConf.
 * The three YAML files are written as JSON (a YAML subset): quoting is exact by construction.
 * Only NICs with neighbours are passed, as metal-hammer's onlyNicsWithNeighbors.
 */

import { getOption, type DescEnum } from "@bufbuild/protobuf";
import { enum_string_value } from "../gen/metalstack/api/v2/common_pb.ts";
import {
  IPProtocolSchema,
  MachineAllocationType,
  type IPProtocol,
  type FirewallRules,
  type MachineAllocation,
  type MachineNetwork,
  type MachineNic,
} from "../gen/metalstack/api/v2/machine_pb.ts";
import { NATType, NATTypeSchema, NetworkTypeSchema } from "../gen/metalstack/api/v2/network_pb.ts";
import { isSecretKey } from "../platform/log/redact.ts";
import { LVMLOCAL_PATH, lvmLocalConf } from "./lvmlocal.ts";

export const MACHINE_DETAILS_PATH = "/etc/metal/machine-details.yaml";
export const MACHINE_ALLOCATION_PATH = "/etc/metal/machine-allocation.yaml";
export const LEGACY_INSTALL_PATH = "/etc/metal/install.yaml";
export const BOOT_INFO_PATH = "/etc/metal/boot-info.yaml";
export const USERDATA_PATH = "/etc/metal/userdata";

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [k: string]: JsonValue };
export type JsonObject = { readonly [k: string]: JsonValue };

export interface ContractInput {
  /** The machine UUID. */
  readonly machineId: string;
  /** The NICs as Register sent them (the generated MachineNic, neighbours included). */
  readonly nics: readonly MachineNic[];
  /** The console password of the metal user (a secret). */
  readonly password: string;
  /** console= from the kernel cmdline, e.g. "ttyS0,115200n8" (Config.console). */
  readonly console: string;
  /** Whether the filesystem layout has RAID arrays. */
  readonly raidEnabled: boolean;
  /** The filesystem UUID of the root filesystem (from the disks stage). */
  readonly rootUuid: string;
  /** The allocation as Wait decoded it (the generated message): what install.yaml and userdata derive from, field by field. */
  readonly allocation: MachineAllocation;
  /** The allocation as the apiserver sent it (unknown fields kept): machine-allocation.yaml, verbatim. */
  readonly allocationAsSent: JsonObject;
  /** RFC 3339 time of writing (legacy `timestamp`). */
  readonly timestamp: string;
}

export interface ContractFile {
  /** Path inside the target root. */
  readonly path: string;
  readonly content: string;
  /** Written only when the image already has the file's directory (else skipped, and logged). */
  readonly onlyIfDirExists?: boolean;
}

export interface ContractFiles {
  /** Every file is written 0600. */
  readonly files: readonly ContractFile[];
}

function hasNeighbours(nic: MachineNic): boolean {
  return nic.neighbors.length > 0 && nic.neighbors.every((n) => n.mac !== "");
}

/** A MachineNic under go-yaml's names for apiv2.MachineNic (no yaml tags: the lower-cased Go field names), every field written as Go writes its zero value. */
function nicYaml(nic: MachineNic): JsonObject {
  return {
    mac: nic.mac,
    name: nic.name,
    identifier: nic.identifier,
    vendor: nic.vendor,
    model: nic.model,
    speed: Number(nic.speed),
    neighbors: nic.neighbors.map(nicYaml),
    hostname: nic.hostname,
  };
}

function legacyNic(nic: MachineNic): JsonObject {
  return { identifier: nic.identifier, mac: nic.mac, name: nic.name, neighbors: nic.neighbors.map(legacyNic) };
}

/** A set enum value's JSON name (`NETWORK_TYPE_CHILD`); "" for the zero value (protojson leaves it out) or a number the enum does not define. */
const enumName = (schema: DescEnum, n: number): string => (n === 0 ? "" : (schema.value[n]?.name ?? ""));

/** v2 MachineNetwork (machine.proto) -> legacy V1MachineNetwork (legacy.go), field by field. */
function legacyNetwork(n: MachineNetwork): JsonObject {
  const type = enumName(NetworkTypeSchema, n.networkType);
  return {
    asn: n.asn,
    destinationprefixes: n.destinationPrefixes,
    ips: n.ips,
    // NAT_TYPE_NONE/unspecified = no masquerading; any other NAT type masquerades.
    nat: n.natType !== NATType.NAT_TYPE_UNSPECIFIED && n.natType !== NATType.NAT_TYPE_NONE,
    nattypev2: enumName(NATTypeSchema, n.natType),
    networkid: n.network,
    networktype: type,
    networktypev2: type,
    prefixes: n.prefixes,
    private: /PRIVATE/.test(type),
    projectid: n.project ?? "",
    underlay: /UNDERLAY/.test(type),
    vrf: Number(n.vrf),
  };
}

/** IP_PROTOCOL_TCP -> "tcp": the value's enum_string_value (machine.proto IPProtocol), v1's spelling; unspecified -> omitted. */
function legacyProtocol(p: IPProtocol): { protocol?: string } {
  const v = IPProtocolSchema.value[p];
  const s = v ? getOption(v, enum_string_value) : "";
  return s !== "" ? { protocol: s } : {};
}

/** v2 FirewallRules -> legacy V1FirewallRules (legacy.go): same members, protocol by its string value, comment omitted when empty. */
function legacyFirewallRules(r: FirewallRules): JsonObject {
  const comment = (c: string) => (c !== "" ? { comment: c } : {});
  return {
    egress: r.egress.map((e) => ({ ...comment(e.comment), ports: e.ports, ...legacyProtocol(e.protocol), to: e.to })),
    ingress: r.ingress.map((e) => ({ ...comment(e.comment), from: e.from, ports: e.ports, ...legacyProtocol(e.protocol), to: e.to })),
  };
}

export function machineDetails(input: ContractInput): JsonObject {
  return {
    id: input.machineId,
    nics: input.nics.filter(hasNeighbours).map(nicYaml),
    password: input.password,
    console: input.console,
    raidenabled: input.raidEnabled,
    root_uuid: input.rootUuid,
  };
}

export function legacyInstallConfig(input: ContractInput): JsonObject {
  const a = input.allocation;
  return {
    hostname: a.hostname,
    networks: a.networks.map(legacyNetwork),
    machineuuid: input.machineId,
    sshpublickey: a.sshPublicKeys.join("\n"),
    password: input.password,
    console: input.console,
    timestamp: input.timestamp,
    nics: input.nics.filter(hasNeighbours).map(legacyNic),
    vpn: a.vpn ? { address: a.vpn.controlPlaneAddress, auth_key: a.vpn.authKey, connected: a.vpn.connected } : null,
    role: a.allocationType === MachineAllocationType.FIREWALL ? "firewall" : "machine",
    raidenabled: input.raidEnabled,
    root_uuid: input.rootUuid,
    firewall_rules: a.firewallRules ? legacyFirewallRules(a.firewallRules) : null,
    dns_servers: a.dnsServers.map((d) => ({ ip: d.ip })),
    ntp_servers: a.ntpServers.map((n) => ({ address: n.address })),
  };
}

/**
 * Secret values of the allocation that the contract files carry: the VPN auth key
 * (machine.proto MachineVPN.auth_key, into install.yaml and machine-allocation.yaml),
 * and, since machine-allocation.yaml carries the allocation as sent, fields newer than
 * our proto/ included, the string value of every member of `asSent` whose name says
 * secret (isSecretKey, as the log's redaction). The caller registers them in the
 * SecretSet before the installer runs, so an installer that echoes them (or an error
 * quoting its output) shows them redacted. Pure.
 */
export function allocationSecrets(allocation: MachineAllocation, asSent: JsonObject): string[] {
  const out = new Set<string>();
  const key = allocation.vpn?.authKey ?? "";
  if (key !== "") out.add(key);
  const walk = (v: JsonValue | undefined, depth: number): void => {
    if (depth > 12 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v as JsonObject)) {
      if (typeof x === "string" && x !== "" && isSecretKey(k)) out.add(x);
      else walk(x, depth + 1);
    }
  };
  walk(asSent, 0);
  return [...out];
}

const doc = (v: JsonValue): string => JSON.stringify(v, null, 2) + "\n";

/**
 * The allocation's user data as metal-hammer writes it to /etc/metal/userdata for older
 * images (cmd/install.go writeUserData): base64-decoded when it is valid base64, else as
 * given; undefined when there is none. Pure.
 */
export function userdataFile(allocation: MachineAllocation): string | undefined {
  const raw = allocation.userdata;
  if (raw === "") return undefined;
  const compact = raw.replace(/\s+/g, "");
  if (compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return Buffer.from(compact, "base64").toString("utf8");
  return raw;
}

export function contractFiles(input: ContractInput): ContractFiles {
  const userdata = userdataFile(input.allocation);
  return {
    files: [
      { path: MACHINE_DETAILS_PATH, content: doc(machineDetails(input)) },
      { path: MACHINE_ALLOCATION_PATH, content: doc(input.allocationAsSent) },
      { path: LEGACY_INSTALL_PATH, content: doc(legacyInstallConfig(input)) },
      ...(userdata !== undefined ? [{ path: USERDATA_PATH, content: userdata }] : []),
      { path: LVMLOCAL_PATH, content: lvmLocalConf(), onlyIfDirExists: true },
    ],
  };
}
