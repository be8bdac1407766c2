/**
 * The allocation the real-OS tests hand os-installer: a machine in one tenant (child)
 * network, shaped like metal-images' fixture (test/fixtures/metal-images), as the
 * apiserver sends it (protojson: vrf as a string, enums by name), with DNS and NTP
 * servers and cloud-config user data, and two NICs with SONiC-style neighbours.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { MachineNicSchema, type MachineNic } from "../../src/gen/metalstack/api/v2/machine_pb.ts";

export const REALOS_MACHINE_ID = "00000000-0000-0000-0000-0000000a11c0";
export const REALOS_HOSTNAME = "realos-1";

export const REALOS_ALLOCATION: JsonObject = {
  uuid: "fc40539c-443b-4ba8-8d32-99ea46d7b32f",
  name: REALOS_HOSTNAME,
  project: "b5f26a3b-9a4d-48db-a6b3-d1dd4ac4abec",
  image: { id: "debian-13.0.20261201", url: "http://images.lab.example/metal-os/lab/debian/13/img.tar.lz4" },
  networks: [
    {
      network: "2d7c53f0-e071-4deb-b82b-c6ff9de45dad",
      prefixes: ["10.132.16.0/22"],
      ips: ["10.132.16.1"],
      networkType: "NETWORK_TYPE_CHILD",
      natType: "NAT_TYPE_NONE",
      vrf: "46",
      asn: 4210000047,
      project: "b5f26a3b-9a4d-48db-a6b3-d1dd4ac4abec",
    },
  ],
  hostname: REALOS_HOSTNAME,
  sshPublicKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMetalHammerLabKeyNotARealOne0000000000000 lab"],
  userdata: "#cloud-config\nhostname: realos-1\n",
  allocationType: "MACHINE_ALLOCATION_TYPE_MACHINE",
  dnsServers: [{ ip: "192.0.2.53" }],
  ntpServers: [{ address: "192.0.2.123" }],
};

const sonic = (port: string, mac: string) => ({ mac: port, name: `Ethernet${mac.slice(-1)}` });
export const REALOS_NICS: readonly MachineNic[] = [
  create(MachineNicSchema, { mac: "52:54:00:a1:1c:00", name: "eth0", neighbors: [sonic("Eth1/1(Port1)", "0")] }),
  create(MachineNicSchema, { mac: "52:54:00:a1:1c:01", name: "eth1", neighbors: [sonic("Eth1/1(Port1)", "1")] }),
];
