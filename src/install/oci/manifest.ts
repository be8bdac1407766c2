/**
 * The OCI documents between a reference and its layers: an image index (or Docker
 * manifest list) resolved to the manifest of one platform, the image manifest read into
 * the plan of its layers, the image config checked for its platform. Only the
 * filesystem counts: the config's Env, Cmd, Labels... are not read (the installed OS
 * boots its own init). Media types after opencontainers/image-spec v1.1 (media-types.md,
 * layer.md) and the Docker Image Manifest v2 schema 2. Pure: bytes in, plan or
 * AgentError (oci_image) out.
 */
import { AgentError } from "../../platform/errors.ts";
import { SHA256_DIGEST } from "./reference.ts";

export const MEDIA = {
  ociIndex: "application/vnd.oci.image.index.v1+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  ociConfig: "application/vnd.oci.image.config.v1+json",
  dockerConfig: "application/vnd.docker.container.image.v1+json",
} as const;

/** The Accept header of a manifest request: every document kind read here. */
export const MANIFEST_ACCEPT = [MEDIA.ociIndex, MEDIA.dockerList, MEDIA.ociManifest, MEDIA.dockerManifest].join(", ");

/** A manifest or index larger than this is refused (an index of ~20 platforms is ~10 KiB). */
export const MAX_MANIFEST_BYTES = 4 << 20;
/** An image config larger than this is refused (its history of a few hundred steps is ~100 KiB). */
export const MAX_CONFIG_BYTES = 4 << 20;
/** More layers than this is refused (overlay-based runtimes stop at ~128). */
export const MAX_LAYERS = 512;
/** An index pointing to an index pointing to a manifest, no deeper. */
export const MAX_INDEX_DEPTH = 2;

export type LayerCompression = "gzip" | "zstd" | "none";

/** Layer media types that can be installed, and how they are compressed. */
export const LAYER_MEDIA: Readonly<Record<string, LayerCompression>> = {
  "application/vnd.oci.image.layer.v1.tar": "none",
  "application/vnd.oci.image.layer.v1.tar+gzip": "gzip",
  "application/vnd.oci.image.layer.v1.tar+zstd": "zstd",
  "application/vnd.docker.image.rootfs.diff.tar.gzip": "gzip",
};

/** Layers that live outside the registry (Windows base layers, non-distributable by licence): never fetched from elsewhere. */
export const FOREIGN_LAYER_MEDIA: readonly string[] = [
  "application/vnd.oci.image.layer.nondistributable.v1.tar",
  "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
  "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd",
  "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip",
];

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

export interface LayerPlan extends Descriptor {
  readonly compression: LayerCompression;
  /** 1-based position, for messages ("layer 3/5 sha256:..."). */
  readonly index: number;
}

export interface ImagePlan {
  readonly config: Descriptor;
  readonly layers: readonly LayerPlan[];
}

export type ManifestDocument =
  | { readonly kind: "index"; readonly manifests: readonly (Descriptor & { readonly platform: Platform | undefined })[] }
  | { readonly kind: "manifest"; readonly plan: ImagePlan };

const fail = (what: string, why: string, details: Record<string, unknown> = {}): never => {
  throw new AgentError("oci_image", `${what}: ${why}`, details);
};

/** The OCI architecture name of a Node/Bun `process.arch`. Pure. */
export function ociArchitecture(nodeArch: string): string {
  return ({ x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" } as Record<string, string>)[nodeArch] ?? nodeArch;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseJson(bytes: Uint8Array, what: string, cap: number): Record<string, unknown> {
  if (bytes.byteLength > cap) fail(what, `${bytes.byteLength} bytes, more than the bound of ${cap}`);
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return fail(what, `not JSON (${(e as Error).message.slice(0, 120)})`);
  }
  if (!isObject(v)) fail(what, "expected a JSON object");
  return v as Record<string, unknown>;
}

/** A descriptor's mediaType, digest (sha256 only) and size, checked. */
export function parseDescriptor(v: unknown, what: string, maxSize = Number.MAX_SAFE_INTEGER): Descriptor {
  if (!isObject(v)) return fail(what, "expected a descriptor object");
  const { mediaType, digest, size } = v;
  if (typeof mediaType !== "string" || mediaType === "") fail(what, "no mediaType");
  if (typeof digest !== "string" || !SHA256_DIGEST.test(digest))
    fail(what, `digest ${JSON.stringify(String(digest).slice(0, 80))} is not sha256:<64 lowercase hex> (other algorithms are not supported)`);
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) fail(what, `size ${JSON.stringify(size)} is not a byte count`);
  if ((size as number) > maxSize) fail(what, `size ${size} is more than the bound of ${maxSize}`);
  return { mediaType: mediaType as string, digest: digest as string, size: size as number };
}

/**
 * A manifest answer: an index (its manifests with their platforms) or an image manifest
 * (its plan). The kind from the Content-Type, else from the document's own mediaType.
 */
export function parseManifestDocument(bytes: Uint8Array, contentType: string | undefined, what: string): ManifestDocument {
  const doc = parseJson(bytes, what, MAX_MANIFEST_BYTES);
  const ct = (contentType ?? "").split(";")[0]?.trim() ?? "";
  const declared = typeof doc.mediaType === "string" ? doc.mediaType : undefined;
  const type = ct === MEDIA.ociIndex || ct === MEDIA.dockerList || ct === MEDIA.ociManifest || ct === MEDIA.dockerManifest ? ct : declared;
  if (doc.schemaVersion !== 2) fail(what, `schemaVersion ${JSON.stringify(doc.schemaVersion)}, expected 2 (schema 1 manifests are not supported)`);
  if (declared !== undefined && type !== undefined && declared !== type) fail(what, `served as ${type} but declares mediaType ${declared}`);
  const kind =
    type === MEDIA.ociIndex || type === MEDIA.dockerList
      ? "index"
      : type === MEDIA.ociManifest || type === MEDIA.dockerManifest
        ? "manifest"
        : Array.isArray(doc.manifests)
          ? "index"
          : undefined;
  if (kind === "index") return { kind, manifests: parseIndexEntries(doc, what) };
  if (kind === "manifest" || (type === undefined && Array.isArray(doc.layers))) return { kind: "manifest", plan: parseImageManifest(doc, what) };
  return fail(what, `media type ${JSON.stringify(type ?? ct)} is neither an image index nor an image manifest`);
}

function parseIndexEntries(doc: Record<string, unknown>, what: string) {
  if (!Array.isArray(doc.manifests)) fail(what, "an index without a manifests array");
  return (doc.manifests as unknown[]).map((m, i) => {
    const d = parseDescriptor(m, `${what}: manifests[${i}]`, MAX_MANIFEST_BYTES);
    const p = (m as Record<string, unknown>).platform;
    const platform =
      isObject(p) && typeof p.os === "string" && typeof p.architecture === "string"
        ? { os: p.os, architecture: p.architecture, ...(typeof p.variant === "string" ? { variant: p.variant } : {}) }
        : undefined;
    return { ...d, platform };
  });
}

function parseImageManifest(doc: Record<string, unknown>, what: string): ImagePlan {
  const config = parseDescriptor(doc.config, `${what}: config`, MAX_CONFIG_BYTES);
  if (config.mediaType !== MEDIA.ociConfig && config.mediaType !== MEDIA.dockerConfig)
    fail(what, `config media type ${config.mediaType} is not an image config (an artifact, not an image?)`);
  if (!Array.isArray(doc.layers) || doc.layers.length === 0) fail(what, "no layers");
  const raw = doc.layers as unknown[];
  if (raw.length > MAX_LAYERS) fail(what, `${raw.length} layers, more than the bound of ${MAX_LAYERS}`);
  const layers = raw.map((l, i) => {
    const name = `layer ${i + 1}/${raw.length}`;
    const d = parseDescriptor(l, `${what}: ${name}`);
    if (FOREIGN_LAYER_MEDIA.includes(d.mediaType))
      fail(what, `${name} ${d.digest} is a foreign/non-distributable layer (${d.mediaType}): refused, it is not fetched from outside the registry`);
    const urls = (l as Record<string, unknown>).urls;
    if (Array.isArray(urls) && urls.length > 0) fail(what, `${name} ${d.digest} names external urls: refused, only the registry's own blobs are fetched`);
    const compression = LAYER_MEDIA[d.mediaType];
    if (compression === undefined) fail(what, `${name} ${d.digest} has media type ${d.mediaType}, not one of ${Object.keys(LAYER_MEDIA).join(", ")}`);
    return { ...d, compression: compression as LayerCompression, index: i + 1 };
  });
  return { config, layers };
}

const platformWords = (p: Platform | undefined): string => (p ? `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ""}` : "(no platform)");

/**
 * The index entry for `want` (linux and the machine's architecture): the first whose os
 * and architecture match, and whose variant matches when both name one. Attestation
 * manifests (platform unknown/unknown) never match.
 */
export function selectPlatform(entries: readonly (Descriptor & { readonly platform: Platform | undefined })[], want: Platform, what: string): Descriptor {
  const hit = entries.find(
    (e) =>
      e.platform !== undefined &&
      e.platform.os === want.os &&
      e.platform.architecture === want.architecture &&
      (want.variant === undefined || e.platform.variant === undefined || e.platform.variant === want.variant),
  );
  if (hit === undefined) fail(what, `no manifest for ${platformWords(want)} in the index (it has: ${entries.map((e) => platformWords(e.platform)).join(", ") || "nothing"})`);
  const d = hit as Descriptor;
  if (d.mediaType !== MEDIA.ociManifest && d.mediaType !== MEDIA.dockerManifest && d.mediaType !== MEDIA.ociIndex && d.mediaType !== MEDIA.dockerList)
    fail(what, `the ${platformWords(want)} entry has media type ${d.mediaType}, not a manifest`);
  return { mediaType: d.mediaType, digest: d.digest, size: d.size };
}

/** The image config's os and architecture must be the machine's; nothing else of it is read. */
export function checkConfigPlatform(bytes: Uint8Array, want: Platform, what: string): void {
  const doc = parseJson(bytes, what, MAX_CONFIG_BYTES);
  if (doc.os !== want.os || doc.architecture !== want.architecture)
    fail(what, `the image is for ${JSON.stringify(doc.os)}/${JSON.stringify(doc.architecture)}, this machine is ${platformWords(want)}`);
}
