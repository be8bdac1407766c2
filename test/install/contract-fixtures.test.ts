/**
 * The contract files the agent writes, against the files metal-images' own image test
 * hands the real os-installer (test/fixtures/metal-images, from
 * metal-stack/metal-images@1917b767 test/sut-ctx/etc/metal/): key by key, type by type.
 * The allocation goes the way it comes in production: protojson from the apiserver in a
 * Wait message, decoded with our generated MachineAllocation, written as received.
 */
import { describe, expect, test } from "bun:test";
import { fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MachineAllocationSchema, MachineNicSchema, type MachineNic } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { contractFiles, legacyInstallConfig, type ContractInput } from "../../src/install/contract.ts";
import { allocationMember } from "../../src/agent/wait-stream.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/metal-images");
const fixture = (name: string) => Bun.YAML.parse(readFileSync(join(FIXTURES, name), "utf8")) as JsonObject;
const details = fixture("machine-details.yaml");
const allocation = fixture("machine-allocation.yaml");

/** Where two YAML documents differ in their keys or in the type of a value (one line each; [] = same shape). */
function shapeDiff(ours: unknown, theirs: unknown, at = "$"): string[] {
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "list" : typeof v);
  if (kind(ours) !== kind(theirs)) return [`${at}: ours ${kind(ours)}, fixture ${kind(theirs)}`];
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) return [`${at}: ours ${ours.length} items, fixture ${theirs.length}`];
    return ours.flatMap((x, i) => shapeDiff(x, theirs[i], `${at}[${i}]`));
  }
  if (kind(ours) !== "object") return [];
  const o = ours as Record<string, unknown>;
  const t = theirs as Record<string, unknown>;
  return [
    ...Object.keys(t)
      .filter((k) => !(k in o))
      .map((k) => `${at}.${k}: missing in ours`),
    ...Object.keys(o)
      .filter((k) => !(k in t))
      .map((k) => `${at}.${k}: not in the fixture`),
    ...Object.keys(o)
      .filter((k) => k in t)
      .flatMap((k) => shapeDiff(o[k], t[k], `${at}.${k}`)),
  ];
}

/** A fixture NIC as the MachineNic Register sent (go-yaml's lower-cased Go names are the protojson names of these fields). */
const nic = (n: JsonObject): MachineNic => fromJson(MachineNicSchema, n);

/** The apiserver's Wait message for this allocation (connect-go encodes it with protojson, as toJson does). */
const waitMessage: JsonValue = { allocation: toJson(MachineAllocationSchema, fromJson(MachineAllocationSchema, allocation)) };
const received = allocationMember(waitMessage);
const decoded = fromJson(MachineAllocationSchema, waitMessage.allocation as JsonValue, { ignoreUnknownFields: true });

const input: ContractInput = {
  machineId: String(details.id),
  nics: (details.nics as JsonObject[]).map(nic),
  password: String(details.password),
  console: String(details.console),
  raidEnabled: details.raidenabled === true,
  rootUuid: String(details.root_uuid),
  allocation: decoded,
  allocationAsSent: received,
  timestamp: "2026-12-01T01:00:00Z",
};
const written = new Map(contractFiles(input).files.map((f) => [f.path, f.content]));
const parsed = (path: string) => Bun.YAML.parse(written.get(path) ?? "") as JsonObject;

describe("contract files against metal-images' os-installer fixtures", () => {
  test("our MachineAllocation decodes the fixture with no field unknown (networks included) and encodes it back as it was", () => {
    // fromJson without ignoreUnknownFields throws on a field our proto/ lacks: the subset that dropped networks would fail here.
    const a = fromJson(MachineAllocationSchema, allocation);
    expect(a.networks.map((n) => [n.network, n.vrf, n.asn, n.ips])).toEqual([["2d7c53f0-e071-4deb-b82b-c6ff9de45dad", 46n, 4210000047, ["10.132.16.1"]]]);
    expect(toJson(MachineAllocationSchema, a)).toEqual(allocation);
  });

  test("machine-details.yaml: the fixture's keys, types and values", () => {
    expect(shapeDiff(parsed("/etc/metal/machine-details.yaml"), details)).toEqual([]);
    expect(parsed("/etc/metal/machine-details.yaml")).toEqual(details);
  });

  test("machine-allocation.yaml: the fixture's keys, types and values (vrf a string, asn a number, enums by name)", () => {
    expect(shapeDiff(parsed("/etc/metal/machine-allocation.yaml"), allocation)).toEqual([]);
    expect(parsed("/etc/metal/machine-allocation.yaml")).toEqual(allocation);
  });

  test("machine-allocation.yaml keeps what the apiserver sent beyond our proto/", () => {
    const sent = { ...(waitMessage as { allocation: JsonObject }).allocation, vpn: { controlPlaneAddress: "https://vpn.example", flavor: "FLAVOR_WIREGUARD" }, zFuture: [1, "2"] };
    const files = contractFiles({ ...input, allocationAsSent: allocationMember({ allocation: sent }) }).files;
    expect(Bun.YAML.parse(files.find((f) => f.path === "/etc/metal/machine-allocation.yaml")!.content)).toEqual(sent);
  });

  test("the shape check sees a missing key, an extra key and a changed type", () => {
    const bent = structuredClone(details) as Record<string, unknown> & { nics: Record<string, unknown>[] };
    delete bent.console;
    bent.extra = 1;
    bent.nics[0]!.speed = "0";
    expect(shapeDiff(bent, details)).toEqual(["$.console: missing in ours", "$.extra: not in the fixture", "$.nics[0].speed: ours string, fixture number"]);
  });
});

/** InstallerConfig of metal-stack/os-installer@7ea1c98 api/v1/legacy.go: yaml key -> the YAML type its Go type takes. */
const LEGACY: Record<string, string> = {
  hostname: "string",
  networks: "list",
  machineuuid: "string",
  sshpublickey: "string",
  password: "string",
  console: "string",
  timestamp: "string",
  nics: "list",
  vpn: "object|null",
  role: "string",
  raidenabled: "boolean",
  root_uuid: "string",
  firewall_rules: "object|null",
  dns_servers: "list",
  ntp_servers: "list",
};
/** V1MachineNetwork (legacy.go): *int64 asn/vrf, *bool nat/private/underlay, *string ..., []string prefixes. */
const LEGACY_NETWORK: Record<string, string> = {
  asn: "number",
  destinationprefixes: "list",
  ips: "list",
  nat: "boolean",
  nattypev2: "string",
  networkid: "string",
  networktype: "string",
  networktypev2: "string",
  prefixes: "list",
  private: "boolean",
  projectid: "string",
  underlay: "boolean",
  vrf: "number",
};
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "list" : typeof v);
const typesOf = (o: JsonObject) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeOf(v)]));
const matches = (o: JsonObject, table: Record<string, string>) =>
  Object.fromEntries(Object.keys(table).map((k) => [k, table[k]!.split("|").includes(typeOf(o[k])) ? table[k] : `${typeOf(o[k])} (expected ${table[k]})`]));

describe("legacy install.yaml against os-installer's InstallerConfig (legacy.go)", () => {
  test("every key of legacy.go, each of its Go type; the fixture's network carried", () => {
    const l = parsed("/etc/metal/install.yaml");
    expect(Object.keys(l).sort()).toEqual(Object.keys(LEGACY).sort());
    expect(matches(l, LEGACY)).toEqual(LEGACY);
    const n = (l.networks as JsonObject[])[0]!;
    expect(typesOf(n)).toEqual(LEGACY_NETWORK);
    expect(n).toMatchObject({
      networkid: "2d7c53f0-e071-4deb-b82b-c6ff9de45dad",
      vrf: 46,
      asn: 4210000047,
      nat: false,
      private: false,
      underlay: false,
      networktype: "NETWORK_TYPE_CHILD",
      projectid: "b5f26a3b-9a4d-48db-a6b3-d1dd4ac4abec",
    });
    expect(l.role).toBe("machine");
  });

  test("a firewall's install.yaml carries its networks, DNS and NTP servers and rules from the decoded allocation", () => {
    const fw = {
      ...(waitMessage as { allocation: JsonObject }).allocation,
      allocationType: "MACHINE_ALLOCATION_TYPE_FIREWALL",
      networks: [
        { network: "underlay", prefixes: ["10.0.0.0/22"], ips: ["10.0.0.1"], networkType: "NETWORK_TYPE_UNDERLAY", natType: "NAT_TYPE_NONE", vrf: "0", asn: 4200003073 },
        {
          network: "internet",
          prefixes: ["185.1.2.0/24"],
          destinationPrefixes: ["0.0.0.0/0"],
          ips: ["185.1.2.3"],
          networkType: "NETWORK_TYPE_EXTERNAL",
          natType: "NAT_TYPE_IPV4_MASQUERADE",
          vrf: "104009",
          asn: 4200003073,
        },
      ],
      dnsServers: [{ ip: "1.1.1.1" }],
      ntpServers: [{ address: "pool.ntp.org" }],
      firewallRules: {
        egress: [{ protocol: "IP_PROTOCOL_TCP", ports: [443], to: ["0.0.0.0/0"], comment: "allow https" }],
        ingress: [{ protocol: "IP_PROTOCOL_UDP", ports: [53], from: ["10.0.0.0/8"], to: [] }],
      },
    };
    // Through the decoder, as the flow does (the decoded message, read field by field): nothing of it may be dropped.
    const a = fromJson(MachineAllocationSchema, fw, { ignoreUnknownFields: true });
    const l = legacyInstallConfig({ ...input, allocation: a, allocationAsSent: fw });
    expect(l.role).toBe("firewall");
    expect((l.networks as JsonObject[]).map((n) => [n.networkid, n.underlay, n.nat, n.vrf, n.destinationprefixes])).toEqual([
      ["underlay", true, false, 0, []],
      ["internet", false, true, 104009, ["0.0.0.0/0"]],
    ]);
    expect([l.dns_servers, l.ntp_servers]).toEqual([[{ ip: "1.1.1.1" }], [{ address: "pool.ntp.org" }]]);
    expect(l.firewall_rules).toEqual({
      egress: [{ comment: "allow https", ports: [443], protocol: "tcp", to: ["0.0.0.0/0"] }],
      ingress: [{ from: ["10.0.0.0/8"], ports: [53], protocol: "udp", to: [] }],
    });
  });
});
