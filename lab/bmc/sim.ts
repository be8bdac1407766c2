/**
 * The lab's BMC: OpenIPMI's ipmi_sim (Debian's `openipmi`) with a lanplus channel, a
 * VM-codec system interface for QEMU's `ipmi-bmc-extern` + `isa-ipmi-kcs` (the guest
 * sees a KCS BMC at /dev/ipmi0), a FRU image, and a LAN configuration program that
 * reports the address and MAC `lan print` shows. Its config, state and script live in
 * one temp dir; the process is ended by its PID. Pitfalls measured on this machine kind
 * (numbers C-style with 0x, -n as a daemon, a non-empty SDR repository, start before
 * QEMU, lanplus only with cipher suite 3 given: docs/bmc.md).
 */
import { spawn, type Subprocess } from "bun";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createSocket } from "node:dgram";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fruImage, type FruData } from "./fru-image.ts";

export interface SimUser {
  readonly id: number;
  readonly name: string;
  readonly password: string;
  readonly privilege: "user" | "operator" | "admin";
}

export interface BmcSimOptions {
  /** Where the lanplus channel listens (in the namespace ipmi_sim runs in). */
  readonly lanAddress: string;
  readonly lanPort?: number;
  /** What `lan print` reports. */
  readonly reportedIp: string;
  readonly reportedMac: string;
  /** The VM-codec port QEMU's ipmi-bmc-extern connects to (127.0.0.1); none: no system interface. */
  readonly serialPort?: number;
  readonly users: readonly SimUser[];
  readonly fru: FruData;
  /** argv prefix to run ipmi_sim with (e.g. `ip netns exec NS`). */
  readonly wrap?: readonly string[];
  /** Firmware revision: major, and minor as IPMI encodes it (BCD: 0x14 prints as .14). */
  readonly firmware?: readonly [number, number];
}

export interface BmcSim {
  readonly lanAddress: string;
  readonly lanPort: number;
  readonly serialPort?: number;
  readonly dir: string;
  readonly pid: number;
  /** The argv of a lanplus ipmitool for `user` (password through IPMI_PASSWORD: use `env`). */
  lanplus(user: string): string[];
  stop(): Promise<void>;
}

/**
 * QEMU's arguments for a guest on this BMC: its KCS interface at the ISA default through
 * ipmi-bmc-extern on the BMC's VM-codec port, and an SMBIOS board vendor go-hal knows
 * (Supermicro). None without a system interface.
 */
export function bmcQemuArgs(bmc: Pick<BmcSim, "serialPort"> | undefined): string[] {
  if (!bmc?.serialPort) return [];
  return [
    "-chardev",
    `socket,id=ipmi0,host=127.0.0.1,port=${bmc.serialPort},reconnect=10`,
    "-device",
    "ipmi-bmc-extern,chardev=ipmi0,id=bmc0",
    "-device",
    "isa-ipmi-kcs,bmc=bmc0",
    "-smbios",
    "type=2,manufacturer=Supermicro,product=X11-MB",
  ];
}

/** A lab FRU: what the e2e expects Register to carry. */
export const LAB_FRU: FruData = {
  chassisType: 0x17,
  chassisPartNumber: "CHS-PN-0001",
  chassisSerial: "CHS-SN-778899",
  boardMfgMinutes: 14_000_000,
  boardMfg: "Acme Servers Inc",
  boardProduct: "X11-MB",
  boardSerial: "BRD-SN-0042",
  boardPartNumber: "BRD-PN-1234",
  productManufacturer: "Acme Servers Inc",
  productName: "AcmeServer 1U",
  productPartNumber: "PRD-PN-5678",
  productVersion: "1.0",
  productSerial: "PRD-SN-XYZ987",
  productAssetTag: "ASSET-0001",
};

/** A free UDP port on `address` (bound and released: ipmi_sim gets it next). */
export async function freeUdpPort(address = "127.0.0.1"): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve, reject) => s.bind(0, address, resolve).once("error", reject));
  const port = s.address().port;
  s.close();
  return port;
}

const hex = (n: number) => `0x${n.toString(16).padStart(2, "0")}`;

function lanConf(o: BmcSimOptions, port: number, dir: string): string {
  const users = o.users.map((u) => `  user ${u.id} true "${u.name}" "${u.password}" ${u.privilege} 10 md2 md5 straight`);
  return [
    `name "labbmc"`,
    `set_working_mc 0x20`,
    `  startlan 1`,
    `    addr ${o.lanAddress} ${port}`,
    `    priv_limit admin`,
    `    allowed_auths_callback none md2 md5 straight`,
    `    allowed_auths_user md2 md5 straight`,
    `    allowed_auths_operator md2 md5 straight`,
    `    allowed_auths_admin md2 md5 straight`,
    `    guid a123456789abcdefa123456789abcdef`,
    `    lan_config_program "${join(dir, "lancontrol.sh")}"`,
    `  endlan`,
    ...(o.serialPort ? [`  serial 15 127.0.0.1 ${o.serialPort} codec VM`] : []),
    `  user 1 false "" "unused" user 10 md2 md5 straight`,
    ...users,
    "",
  ].join("\n");
}

function simEmu(o: BmcSimOptions): string {
  const [maj, min] = o.firmware ?? [1, 2];
  const fru = [...fruImage(o.fru)].map(hex).join(" ");
  // Manufacturer 0x2a7c = 10876 (Super Micro Computer Inc.), product 0x0b0c.
  return [
    `mc_setbmc 0x20`,
    `mc_add 0x20 0 no-device-sdrs 0x23 ${hex(maj)} ${hex(min)} 0x9f 0x2a7c 0x0b0c`,
    `sel_enable 0x20 100 0x0a`,
    // An empty main SDR repository makes `ipmitool fru` rebuild (and clear) it: one MC locator record.
    `main_sdr_add 0x20 0x00 0x00 0x51 0x12 0x0e 0x20 0x00 0x00 0x9f 0x00 0x00 0x00 0x07 0x01 0x00 0xc3 'B 'M 'C`,
    `mc_add_fru_data 0x20 0 0x100 data ${fru}`,
    `mc_enable 0x20`,
    "",
  ].join("\n");
}

/** A read-only lan_config_program: prints `name:value` for what ipmi_sim asks, accepts and ignores `set`. */
function lanControl(o: BmcSimOptions): string {
  return `#!/bin/sh
op=$1; shift
[ "$op" = get ] || exit 0
for p in "$@"; do
  case $p in
    ip_addr_src) echo "$p:static" ;;
    ip_addr) echo "$p:${o.reportedIp}" ;;
    mac_addr) echo "$p:${o.reportedMac}" ;;
    subnet_mask) echo "$p:255.255.255.0" ;;
    *_mac_addr) echo "$p:00:00:00:00:00:00" ;;
    *) echo "$p:0.0.0.0" ;;
  esac
done
`;
}

/** Starts ipmi_sim and waits (bounded) until its lanplus channel answers. */
export async function startBmcSim(o: BmcSimOptions, timeoutMs = 10_000): Promise<BmcSim> {
  const dir = mkdtempSync(join(tmpdir(), "mh-bmc-"));
  const port = o.lanPort ?? (await freeUdpPort(o.lanAddress === "::" ? "127.0.0.1" : o.lanAddress));
  mkdirSync(join(dir, "state"));
  writeFileSync(join(dir, "lan.conf"), lanConf(o, port, dir), { mode: 0o600 });
  writeFileSync(join(dir, "sim.emu"), simEmu(o), { mode: 0o600 });
  writeFileSync(join(dir, "lancontrol.sh"), lanControl(o));
  chmodSync(join(dir, "lancontrol.sh"), 0o700);
  const p: Subprocess = spawn([...(o.wrap ?? []), "ipmi_sim", "-c", join(dir, "lan.conf"), "-f", join(dir, "sim.emu"), "-s", join(dir, "state"), "-n"], {
    stdin: "ignore",
    stdout: Bun.file(join(dir, "ipmi_sim.log")),
    stderr: Bun.file(join(dir, "ipmi_sim.err")),
  });
  const admin = o.users.find((u) => u.privilege === "admin");
  const lanplus = (user: string) => ["ipmitool", "-I", "lanplus", "-C", "3", "-N", "1", "-R", "1", "-H", o.lanAddress, "-p", String(port), "-U", user, "-E"];
  const sim: BmcSim = {
    lanAddress: o.lanAddress,
    lanPort: port,
    ...(o.serialPort ? { serialPort: o.serialPort } : {}),
    dir,
    pid: p.pid,
    lanplus,
    async stop() {
      p.kill("SIGTERM");
      const exited = await Promise.race([p.exited.then(() => true), Bun.sleep(3_000).then(() => false)]);
      if (!exited) p.kill("SIGKILL");
      await p.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.exitCode !== null) {
      const err = await Bun.file(join(dir, "ipmi_sim.err"))
        .text()
        .catch(() => "");
      await sim.stop();
      throw new Error(`ipmi_sim exited with ${p.exitCode} before its LAN channel answered: ${err.trim().slice(0, 300)}`);
    }
    if (admin) {
      const probe = spawn([...(o.wrap ?? []), ...lanplus(admin.name), "mc", "guid"], {
        stdout: "ignore",
        stderr: "ignore",
        env: { ...process.env, IPMI_PASSWORD: admin.password },
      });
      if ((await probe.exited) === 0) return sim;
    }
    if (Date.now() > deadline) {
      await sim.stop();
      throw new Error(`ipmi_sim's LAN channel on ${o.lanAddress}:${port} did not answer within ${timeoutMs} ms`);
    }
    await Bun.sleep(50);
  }
}
