/**
 * The BMC facts Register reports, read from ipmitool's text (the same three commands
 * metal-hammer's go-hal runs: metal-stack/go-hal@4ca05b53 internal/ipmi/ipmitool.go:84-116,
 * 221-255). Every value is checked; what fails a check is left out with a note saying
 * what was read and what was expected, so a BMC with odd output never stops provisioning
 * and never sends Register a value the apiserver's rules refuse. Pure.
 */
import { firstValues, fruBlocks, ipmitoolFields } from "./ipmitool-text.ts";

export interface LanReading {
  /** IPv4 address of the BMC's LAN channel (undefined: unset or not an address). */
  readonly ip?: string;
  readonly mac?: string;
  readonly ipSource?: string;
  readonly notes: readonly string[];
}

/** MachineFRU's fields (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto MachineFRU), each when the BMC printed it. */
export interface FruReading {
  readonly chassisPartNumber?: string;
  readonly chassisPartSerial?: string;
  readonly boardMfg?: string;
  readonly boardMfgSerial?: string;
  readonly boardPartNumber?: string;
  readonly productManufacturer?: string;
  readonly productPartNumber?: string;
  readonly productSerial?: string;
}

export interface BmcInfoReading {
  readonly firmwareRevision?: string;
  readonly manufacturer?: string;
  readonly notes: readonly string[];
}

const MAC = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** is_description: at most 256 characters (metal-stack/api@e6201fcb proto/metalstack/api/v2/predefined_rules.proto:24-28). */
export const DESCRIPTION_MAX = 256;

const shown = (v: string): string => JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}...` : v);

/** `ipmitool lan print`: IP Address, MAC Address, IP Address Source. */
export function parseLanPrint(text: string): LanReading {
  const f = firstValues(ipmitoolFields(text));
  const notes: string[] = [];
  const rawIp = f.get("IP Address");
  const rawMac = f.get("MAC Address");
  let ip: string | undefined;
  let mac: string | undefined;
  if (rawIp === undefined) notes.push("lan print: no 'IP Address' line");
  else if (rawIp === "0.0.0.0") notes.push("lan print: the BMC has no IP address (0.0.0.0)");
  else if (!IPV4.test(rawIp)) notes.push(`lan print: IP Address ${shown(rawIp)} is not an IPv4 address`);
  else ip = rawIp;
  if (rawMac === undefined) notes.push("lan print: no 'MAC Address' line");
  else if (!MAC.test(rawMac)) notes.push(`lan print: MAC Address ${shown(rawMac)} is not a MAC address`);
  else if (/^(00:){5}00$/.test(rawMac)) notes.push("lan print: the BMC reports MAC 00:00:00:00:00:00");
  else mac = rawMac.toLowerCase();
  const ipSource = f.get("IP Address Source");
  return { ...(ip ? { ip } : {}), ...(mac ? { mac } : {}), ...(ipSource ? { ipSource } : {}), notes };
}

/** ipmitool's names for MachineFRU's fields. `Board Serial` is what ipmitool prints for the board serial (go-hal asks for `Board Mfg Serial`, a name ipmitool never prints, so upstream always sends it empty). */
const FRU_NAMES: Readonly<Record<keyof FruReading, string>> = {
  chassisPartNumber: "Chassis Part Number",
  chassisPartSerial: "Chassis Serial",
  boardMfg: "Board Mfg",
  boardMfgSerial: "Board Serial",
  boardPartNumber: "Board Part Number",
  productManufacturer: "Product Manufacturer",
  productPartNumber: "Product Part Number",
  productSerial: "Product Serial",
};

/**
 * `ipmitool fru`: the builtin FRU device (ID 0), else the first block. go-hal reads all
 * blocks into one map, so a machine with more FRU devices reported the last device's
 * values; the builtin one describes the server.
 */
export function parseFru(text: string): { readonly fru: FruReading; readonly notes: readonly string[] } {
  const blocks = fruBlocks(ipmitoolFields(text));
  if (blocks.length === 0) return { fru: {}, notes: ["fru: no FRU device printed"] };
  const block = blocks.find((b) => /\(ID 0\)/.test(b.description)) ?? blocks[0]!;
  const notes: string[] = [];
  const fru: Record<string, string> = {};
  for (const [key, name] of Object.entries(FRU_NAMES)) {
    const v = block.fields.get(name);
    if (v === undefined || v === "") continue;
    if (v.length > DESCRIPTION_MAX || /[\u0000-\u001f\u007f]/.test(v)) {
      notes.push(`fru: ${name} ${shown(v)} is not a description (at most ${DESCRIPTION_MAX} printable characters)`);
      continue;
    }
    fru[key] = v;
  }
  return { fru: fru as FruReading, notes };
}

/** `ipmitool bmc info`: Firmware Revision (MachineBMC.version) and the manufacturer's name. */
export function parseBmcInfo(text: string): BmcInfoReading {
  const f = firstValues(ipmitoolFields(text));
  const notes: string[] = [];
  const rev = f.get("Firmware Revision");
  let firmwareRevision: string | undefined;
  if (rev === undefined || rev === "") notes.push("bmc info: no 'Firmware Revision' line");
  else if (!/^[\x20-\x7e]{1,64}$/.test(rev)) notes.push(`bmc info: Firmware Revision ${shown(rev)} is not a version`);
  else firmwareRevision = rev;
  const manufacturer = f.get("Manufacturer Name");
  return { ...(firmwareRevision ? { firmwareRevision } : {}), ...(manufacturer ? { manufacturer } : {}), notes };
}
