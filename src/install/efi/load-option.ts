/**
 * EFI boot variables as the firmware stores them (UEFI spec 2.10), both ways. Pure.
 *
 * - `Boot####` holds an EFI_LOAD_OPTION (§3.1.3 "Load Options"): UINT32 Attributes,
 *   UINT16 FilePathListLength (bytes), CHAR16 Description[] (UTF-16LE, NUL-terminated),
 *   EFI_DEVICE_PATH_PROTOCOL FilePathList[] (FilePathListLength bytes), UINT8
 *   OptionalData[] (the rest).
 * - `BootOrder` is a UINT16 array of #### numbers (§3.3 "Globally Defined Variables",
 *   attributes NV+BS+RT), all little-endian.
 * - A device path (§10.2, §10.3) is a list of nodes: UINT8 Type, UINT8 SubType,
 *   UINT16 Length (the node's bytes, header included), ended by Type 0x7F SubType 0xFF.
 *   A network boot option (PXE, HTTP boot) carries a Messaging node (Type 0x03) MAC
 *   Address (SubType 11), IPv4 (12), IPv6 (13) or URI (24) (§10.3.5).
 *
 * efivarfs shows each variable as a file `<Name>-<VendorGuid>` whose content is the
 * UINT32 attributes followed by the data (Linux Documentation/filesystems/efivarfs.rst).
 */

/** EFI_GLOBAL_VARIABLE: the vendor GUID of Boot#### and BootOrder (§3.3). */
export const EFI_GLOBAL_VARIABLE = "8be4df61-93ca-11d2-aa0d-00e098032b8c";
export const EFI_VARIABLE_NON_VOLATILE = 0x1;
export const EFI_VARIABLE_BOOTSERVICE_ACCESS = 0x2;
export const EFI_VARIABLE_RUNTIME_ACCESS = 0x4;
/** The attributes of BootOrder and Boot####: NV|BS|RT = 0x7 (§3.3). */
export const BOOT_VARIABLE_ATTRIBUTES = EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS;
/** LOAD_OPTION_ACTIVE (§3.1.3). */
export const LOAD_OPTION_ACTIVE = 0x1;

const DP_MESSAGING = 0x03;
const DP_END = 0x7f;
/** Messaging SubTypes of a network boot: MAC 11, IPv4 12, IPv6 13, URI 24 (§10.3.5). */
const NETWORK_SUBTYPES: ReadonlySet<number> = new Set([11, 12, 13, 24]);

export class LoadOptionError extends Error {
  override readonly name = "LoadOptionError";
}

export interface DevicePathNode {
  readonly type: number;
  readonly subType: number;
  /** The node's data after its 4-byte header. */
  readonly data: Uint8Array;
}

export interface LoadOption {
  readonly attributes: number;
  readonly description: string;
  readonly filePath: readonly DevicePathNode[];
  readonly optionalData: Uint8Array;
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** The nodes of a device path list (every instance, End nodes left out). */
export function decodeDevicePath(b: Uint8Array): DevicePathNode[] {
  const nodes: DevicePathNode[] = [];
  const dv = view(b);
  let o = 0;
  while (o < b.length) {
    if (o + 4 > b.length) throw new LoadOptionError(`device path: a node header at byte ${o} runs past the end (${b.length} bytes)`);
    const type = b[o]!;
    const subType = b[o + 1]!;
    const len = dv.getUint16(o + 2, true);
    if (len < 4 || o + len > b.length) throw new LoadOptionError(`device path: node ${type}/${subType} at byte ${o} has length ${len} (expected 4..${b.length - o})`);
    if (type !== DP_END) nodes.push({ type, subType, data: b.subarray(o + 4, o + len) });
    o += len;
  }
  return nodes;
}

/** Decodes a Boot#### value (without efivarfs' 4 attribute bytes). */
export function decodeLoadOption(b: Uint8Array): LoadOption {
  if (b.length < 8) throw new LoadOptionError(`load option: ${b.length} bytes, expected at least 8 (attributes, file path length, description)`);
  const dv = view(b);
  const attributes = dv.getUint32(0, true);
  const pathLen = dv.getUint16(4, true);
  let end = 6;
  while (end + 1 < b.length && dv.getUint16(end, true) !== 0) end += 2;
  if (end + 1 >= b.length) throw new LoadOptionError("load option: the description has no NUL terminator");
  const description = new TextDecoder("utf-16le").decode(b.subarray(6, end));
  const pathStart = end + 2;
  if (pathStart + pathLen > b.length)
    throw new LoadOptionError(`load option "${description}": file path list of ${pathLen} bytes runs past the end (${b.length - pathStart} left)`);
  return {
    attributes,
    description,
    filePath: decodeDevicePath(b.subarray(pathStart, pathStart + pathLen)),
    optionalData: b.subarray(pathStart + pathLen),
  };
}

const END_ENTIRE = Uint8Array.of(DP_END, 0xff, 4, 0);

/** A device path's bytes: the nodes, then End Entire (7F FF 0400). */
export function encodeDevicePath(nodes: readonly DevicePathNode[]): Uint8Array {
  const out = new Uint8Array(nodes.reduce((n, x) => n + 4 + x.data.length, END_ENTIRE.length));
  let o = 0;
  for (const n of nodes) {
    const len = 4 + n.data.length;
    if (len > 0xffff) throw new LoadOptionError(`device path: node ${n.type}/${n.subType} of ${len} bytes, more than a UINT16 length holds`);
    out[o] = n.type;
    out[o + 1] = n.subType;
    view(out).setUint16(o + 2, len, true);
    out.set(n.data, o + 4);
    o += len;
  }
  out.set(END_ENTIRE, o);
  return out;
}

/** A Boot#### value (without efivarfs' 4 attribute bytes), as efivar's efi_loadopt_create lays it out. */
export function encodeLoadOption(o: LoadOption): Uint8Array {
  const path = encodeDevicePath(o.filePath);
  if (path.length > 0xffff) throw new LoadOptionError(`load option "${o.description}": file path list of ${path.length} bytes, more than a UINT16 length holds`);
  const desc = new Uint8Array(Buffer.from(`${o.description}\0`, "utf16le"));
  const out = new Uint8Array(6 + desc.length + path.length + o.optionalData.length);
  view(out).setUint32(0, o.attributes, true);
  view(out).setUint16(4, path.length, true);
  out.set(desc, 6);
  out.set(path, 6 + desc.length);
  out.set(o.optionalData, 6 + desc.length + path.length);
  return out;
}

/** A network boot option (PXE or HTTP): its device path has a MAC, IPv4, IPv6 or URI node. */
export function isNetworkOption(o: LoadOption): boolean {
  return o.filePath.some((n) => n.type === DP_MESSAGING && NETWORK_SUBTYPES.has(n.subType));
}

export function decodeBootOrder(b: Uint8Array): number[] {
  if (b.length % 2 !== 0) throw new LoadOptionError(`BootOrder: ${b.length} bytes, expected an even number (UINT16 entries)`);
  const dv = view(b);
  return Array.from({ length: b.length / 2 }, (_, i) => dv.getUint16(i * 2, true));
}

export function encodeBootOrder(order: readonly number[]): Uint8Array {
  const b = new Uint8Array(order.length * 2);
  order.forEach((n, i) => view(b).setUint16(i * 2, n, true));
  return b;
}

/** "Boot0003" for 3 (four upper-case hex digits, §3.1.1). */
export const bootName = (n: number): string => `Boot${n.toString(16).toUpperCase().padStart(4, "0")}`;

/** The #### of a Boot#### variable name, or undefined for any other name. */
export function bootNumber(name: string): number | undefined {
  const m = /^Boot([0-9A-F]{4})$/.exec(name);
  return m ? parseInt(m[1]!, 16) : undefined;
}
