/**
 * The boot side of the metal-boot stand-in, pure part: its configuration (zod), which
 * partition a request's IPv6 source address belongs to (MEP-20: metal-boot tells
 * partitions apart by the boot network's source prefix), and the kernel cmdline a
 * partition's machines get. No I/O.
 */
import ipaddr from "ipaddr.js";
import { z } from "zod";

const NAME_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Characters iPXE and the kernel read literally in one cmdline word. */
const CMDLINE_WORD_RE = /^[A-Za-z0-9\-._~:/?[\]@!&'()*+,;=%]+$/;

const ipv6Prefix = z.string().refine((s) => {
  try {
    const [addr, len] = ipaddr.parseCIDR(s);
    return addr.kind() === "ipv6" && len >= 8 && len <= 128;
  } catch {
    return false;
  }
}, "expected an IPv6 prefix like 2001:db8:a::/64");

const httpUrl = z.string().refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), "expected an http(s) URL");

export const PartitionSchema = z.object({
  name: z.string().regex(NAME_RE, "expected a partition name: lowercase letters, digits, dashes"),
  prefix: ipv6Prefix,
  kernel: z.string().min(1, "expected the kernel (bzImage) path"),
  initrd: z.string().min(1, "expected the initrd path"),
  initrdVersion: z.string().regex(/^[A-Za-z0-9._-]{1,40}$/, "expected a version like v1 or 0.3.1"),
  /** Where the agent finds metal-boot again (METAL_BOOT_URL on the cmdline). */
  metalBootUrl: httpUrl,
  /** Extra cmdline words (console=..., METAL_NET_FAST=1, ...). */
  cmdline: z.string().default(""),
  /**
   * More initrds after the main one (cpio archives the kernel unpacks over it), e.g. the
   * installation's CA as /etc/metal/ca.pem: installation data comes from metal-boot,
   * never baked into the metal-hammer initrd.
   */
  extraInitrds: z.array(z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "expected a file name"), path: z.string().min(1) })).default([]),
});

export const BootServerConfigSchema = z.object({
  listen: z.object({ host: z.string().refine((h) => ipaddr.isValid(h), "expected an IP address"), port: z.number().int().min(0).max(65535) }),
  /** The same server over TLS as well (metal-boot's https side: MEP-20 chains https://<name>/boot.ipxe); cert and key are PEM files. */
  tls: z.object({ port: z.number().int().min(0).max(65535), cert: z.string().min(1), key: z.string().min(1) }).optional(),
  /** Base URL iPXE fetches kernel and initrd from, e.g. http://[fd00:b007::1]:8080. */
  publicUrl: httpUrl,
  partitions: z.array(PartitionSchema).min(1, "expected at least one partition"),
});

export type Partition = z.output<typeof PartitionSchema>;
/** A partition as written in a configuration (defaults not yet applied). */
export type PartitionInput = z.input<typeof PartitionSchema>;
export type BootServerConfig = z.output<typeof BootServerConfigSchema>;

/** Parses the configuration; the error names the field and what was expected. */
export function parseBootServerConfig(raw: unknown): BootServerConfig {
  const r = BootServerConfigSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`boot server config: ${i?.path.join(".") || "(root)"}: ${i?.message ?? "invalid"}`);
  }
  const names = new Set<string>();
  for (const p of r.data.partitions) {
    if (names.has(p.name)) throw new Error(`boot server config: partitions: duplicate name ${p.name}`);
    names.add(p.name);
    for (const w of p.cmdline.split(/\s+/).filter(Boolean)) {
      if (!CMDLINE_WORD_RE.test(w)) throw new Error(`boot server config: partitions.${p.name}.cmdline: ${JSON.stringify(w)}: expected no quotes, '$' or '#'`);
    }
  }
  return r.data;
}

/** The partition whose prefix holds `source` (longest prefix wins), or undefined. */
export function partitionFor(source: string, partitions: readonly Partition[]): Partition | undefined {
  if (!ipaddr.isValid(source)) return undefined;
  let addr = ipaddr.parse(source);
  if (addr.kind() === "ipv4") return undefined; // IPv4 is never a boot network
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return undefined;
  let best: { p: Partition; len: number } | undefined;
  for (const p of partitions) {
    const [net, len] = ipaddr.parseCIDR(p.prefix);
    if (v6.match(net, len) && (!best || len > best.len)) best = { p, len };
  }
  return best?.p;
}

/** The kernel cmdline for a partition: everything the agent needs to find metal-boot again. */
export function cmdlineFor(p: Partition): string {
  const url = new URL(p.metalBootUrl);
  const words = [`METAL_MODE=l3`, `METAL_BOOT_URL=${p.metalBootUrl}`, `METAL_PARTITION=${p.name}`];
  if (url.protocol === "http:") words.push("METAL_ALLOW_HTTP=1");
  return [...words, ...p.cmdline.split(/\s+/).filter(Boolean)].join(" ");
}

export const kernelPath = (p: Partition): string => `/p/${p.name}/vmlinuz`;
export const initrdPath = (p: Partition): string => `/p/${p.name}/initrd-${p.initrdVersion}.img`;
export const extraInitrdPath = (p: Partition, name: string): string => `/p/${p.name}/${name}`;
