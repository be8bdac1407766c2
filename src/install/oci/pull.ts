/**
 * Installs an `oci://` image onto the mounted target: the reference resolved to this
 * machine's manifest (registry-client.ts, manifest.ts), the config checked for the
 * platform (nothing else of it is read: Env, Labels, Entrypoint are not the OS), then each
 * layer in order streamed through the same path as the tar.lz4 image (image.ts
 * streamPass: stall and trickle bounds, Range resume, the deadline; extract.ts: GNU tar
 * from a pipe) with gzip/zstd in front (layer-decoder.ts), its sha256 (the blob's name)
 * verified inline, and its whiteouts applied inside the target after it
 * (whiteout-apply.ts). Nothing is stored in RAM or /tmp.
 *
 * A layer whose bytes do not hash to its digest has already been unpacked: the target is
 * cleaned and the whole image fetched once more; a second mismatch is exit 51 naming the
 * layer. Not PR #175's way (metal-stack/metal-hammer#175 unpacks into /tmp/os.tgz and,
 * with credentials, pulls the registry URL rather than the image): read for the contract only.
 */
import { AgentError } from "../../platform/errors.ts";
import type { HttpClient } from "../../clients/http/http-client.ts";
import type { RetryPolicy } from "../../clients/http/retry.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { SecretSet } from "../../platform/log/redact.ts";
import { cleanTarget } from "../clean.ts";
import { checkTools, exitWords, tarExtractor, type ExtractorFactory, type TarOptions } from "../extract.ts";
import { DeadlineHit, DEFAULT_IMAGE_DEADLINE_MS, realImageEnv, streamPass, type ImageEnv, type Pass } from "../image.ts";
import { credentialsFor, type OciConfigs } from "./credentials.ts";
import { layerDecoder } from "./layer-decoder.ts";
import {
  checkConfigPlatform,
  MAX_CONFIG_BYTES,
  MAX_INDEX_DEPTH,
  ociArchitecture,
  parseManifestDocument,
  selectPlatform,
  type ImagePlan,
  type LayerPlan,
  type Platform,
} from "./manifest.ts";
import { formatOciReference, manifestRef, parseOciReference, type OciReference } from "./reference.ts";
import { RegistryClient } from "./registry-client.ts";
import { TarScanError, TarScanner } from "./tar-scan.ts";
import { applyWhiteouts } from "./whiteout-apply.ts";
import { WHITEOUT_EXCLUDE, WhiteoutError, WhiteoutPlanner } from "./whiteout-plan.ts";

export interface OciInstallOptions {
  readonly http: HttpClient;
  /** `oci://REGISTRY/REPOSITORY:TAG` or `...@sha256:DIGEST`. */
  readonly reference: string;
  readonly root: string;
  readonly log: Logger;
  /** metal-boot's oci_configs (registry -> username/password). */
  readonly ociConfigs?: OciConfigs;
  readonly secrets?: SecretSet;
  /**
   * The partition's pull-through mirror (the image cache's origin serving /v2/, told the
   * upstream by `?ns=REGISTRY`): asked first, once, without the registry's credentials;
   * any failure to resolve the image there falls back to the registry (one line).
   */
  readonly mirror?: URL;
  /** Default linux and this process's architecture. */
  readonly platform?: Platform;
  readonly stallMs?: number;
  readonly minBytesPerStall?: number;
  readonly retry?: RetryPolicy;
  readonly unpackStallMs?: number;
  readonly deadlineMs?: number;
  readonly progressMs?: number;
  readonly tar?: TarOptions;
  readonly clean?: (root: string) => Promise<void>;
  readonly env?: ImageEnv;
}

export interface OciLayerResult {
  readonly digest: string;
  readonly mediaType: string;
  readonly bytes: number;
  readonly resumes: number;
  readonly whiteouts: number;
}

export interface OciInstallResult {
  readonly reference: string;
  readonly manifest: string;
  /** host:port the image came from: the mirror's or the registry's (also when the mirror served a bad layer: the second pass). */
  readonly source: string;
  readonly layers: readonly OciLayerResult[];
  readonly bytes: number;
  /** 1, or 2 after a layer's digest mismatch. */
  readonly passes: number;
  readonly ms: number;
}

const sha256 = (b: Uint8Array): string => `sha256:${new Bun.CryptoHasher("sha256").update(b).digest("hex")}`;

/** A document fetched by digest must hash to it (image_checksum otherwise). */
function verifyDigest(bytes: Uint8Array, digest: string, what: string): void {
  const got = sha256(bytes);
  if (got !== digest) throw new AgentError("image_checksum", `${what}: fetched by digest ${digest}, its bytes hash to ${got}`, { digest, got });
}

/** Tag or digest -> (index ->) the manifest of `platform` -> its plan; every document fetched by digest verified. */
export async function resolveImage(client: RegistryClient, ref: OciReference, platform: Platform): Promise<{ digest: string; plan: ImagePlan }> {
  const name = formatOciReference(ref);
  let at = manifestRef(ref);
  for (let depth = 0; depth <= MAX_INDEX_DEPTH; depth++) {
    const what = `manifest ${at} of ${name}`;
    const f = await client.manifest(at);
    if (at.startsWith("sha256:")) verifyDigest(f.bytes, at, what);
    const doc = parseManifestDocument(f.bytes, f.contentType, what);
    if (doc.kind === "manifest") return { digest: sha256(f.bytes), plan: doc.plan };
    at = selectPlatform(doc.manifests, platform, what).digest;
  }
  throw new AgentError("oci_image", `${name}: indexes nested deeper than ${MAX_INDEX_DEPTH}`, { reference: name });
}

interface Resolved {
  readonly client: RegistryClient;
  readonly digest: string;
  readonly plan: ImagePlan;
}

/**
 * The image resolved and its config checked through `client`; for the mirror (`final`
 * false) any AgentError is one line and undefined (the registry is asked next).
 */
async function resolveVia(o: OciInstallOptions, client: RegistryClient, ref: OciReference, platform: Platform, final = false): Promise<Resolved | undefined> {
  const name = formatOciReference(ref);
  try {
    const { digest, plan } = await resolveImage(client, ref, platform);
    checkConfigPlatform(await client.smallBlob(plan.config, MAX_CONFIG_BYTES, "config"), platform, `config ${plan.config.digest} of ${name}`);
    return { client, digest, plan };
  } catch (e) {
    if (final || !(e instanceof AgentError)) throw e;
    logEvent(
      o.log,
      "install.oci.mirror",
      { reference: name, mirror: client.host, code: e.code, reason: e.message },
      `oci: the mirror ${client.host} could not serve ${name} (${e.message}); from the registry ${ref.registry}`,
      "warn",
    );
    return undefined;
  }
}

export async function installOciImage(o: OciInstallOptions): Promise<OciInstallResult> {
  const problem = checkTools(o.tar);
  if (problem) throw new AgentError("image_unpack", `image: cannot unpack here: ${problem}`, {});
  const env = o.env ?? realImageEnv;
  const t0 = env.now();
  const ref = parseOciReference(o.reference);
  const name = formatOciReference(ref);
  const platform = o.platform ?? { os: "linux", architecture: ociArchitecture(process.arch) };
  const fromMirror = o.mirror
    ? await resolveVia(o, new RegistryClient({ http: o.http, ref, credentials: undefined, log: o.log, mirror: o.mirror, once: true }), ref, platform)
    : undefined;
  const registry = () => new RegistryClient({ http: o.http, ref, credentials: credentialsFor(o.ociConfigs, ref), log: o.log, ...(o.secrets ? { secrets: o.secrets } : {}) });
  const resolved = fromMirror ?? ((await resolveVia(o, registry(), ref, platform, true)) as Resolved);
  const { digest, plan } = resolved;
  let client = resolved.client;
  logEvent(
    o.log,
    "install.oci.resolve",
    {
      reference: name,
      manifest: digest,
      source: client.host,
      platform: `${platform.os}/${platform.architecture}`,
      layers: plan.layers.map((l) => ({ digest: l.digest, mediaType: l.mediaType, size: l.size })),
    },
    `oci: ${name} is ${digest} for ${platform.os}/${platform.architecture} (from ${client.host}): ${plan.layers.length} layer(s), ${plan.layers.reduce((n, l) => n + l.size, 0)} bytes`,
  );
  const deadlineMs = o.deadlineMs ?? DEFAULT_IMAGE_DEADLINE_MS;
  const deadline = new AbortController();
  const cancel = env.after(deadlineMs, () => deadline.abort(new DeadlineHit(`the image install's deadline of ${deadlineMs} ms`)));
  const clean = o.clean ?? cleanTarget;
  try {
    for (let passNo = 1; ; passNo++) {
      const layers: OciLayerResult[] = [];
      let mismatch: { layer: LayerPlan; got: string } | undefined;
      for (const layer of plan.layers) {
        const r = await installLayer(o, client, name, layer, deadline.signal);
        if ("got" in r) {
          mismatch = { layer, got: r.got };
          break;
        }
        layers.push(r);
      }
      if (mismatch === undefined) {
        const result: OciInstallResult = {
          reference: name,
          manifest: digest,
          source: client.host,
          layers,
          bytes: layers.reduce((n, l) => n + l.bytes, 0),
          passes: passNo,
          ms: Math.round(env.now() - t0),
        };
        logEvent(
          o.log,
          "install.oci.done",
          { reference: name, manifest: digest, bytes: result.bytes, layers: layers.length, resumes: layers.reduce((n, l) => n + l.resumes, 0), passes: passNo, ms: result.ms },
          `oci: ${name}: ${layers.length} layer(s), ${result.bytes} bytes on ${o.root} in ${result.ms} ms, every digest verified`,
        );
        return result;
      }
      const { layer, got } = mismatch;
      const lname = `layer ${layer.index}/${plan.layers.length} ${layer.digest}`;
      if (passNo >= 2) {
        throw new AgentError("image_checksum", `${name}: ${lname}: its bytes hash to ${got}, also after one retry from scratch`, { reference: name, layer: layer.digest, got });
      }
      logEvent(
        o.log,
        "install.oci.retry",
        { reference: name, layer: layer.digest, got },
        `oci: ${name}: ${lname}: its bytes hash to ${got}; cleaning the target and fetching the image once more${fromMirror ? ` from the registry ${ref.registry}` : ""}`,
        "warn",
      );
      await clean(o.root);
      if (fromMirror && client === fromMirror.client) {
        // The mirror served bad bytes: the second pass from the registry, which authenticates on the manifest the mirror named.
        client = registry();
        verifyDigest((await client.manifest(digest)).bytes, digest, `manifest ${digest} of ${name}`);
      }
    }
  } finally {
    cancel();
  }
}

/** One layer streamed, verified and its whiteouts applied; `got` when its digest did not match. */
async function installLayer(o: OciInstallOptions, client: RegistryClient, name: string, layer: LayerPlan, deadline: AbortSignal): Promise<OciLayerResult | { got: string }> {
  const lname = `layer ${layer.index} ${layer.digest}`;
  let planner = new WhiteoutPlanner();
  /** A member the whiteout plan refuses (oci_image): kept here, the stream stopped as a bad one, thrown after. */
  let refused: AgentError | undefined;
  const factory: ExtractorFactory = (root) => {
    // a restart from byte 0 unpacks the layer again: its member list starts again too
    planner = new WhiteoutPlanner();
    const p = planner;
    const scanner = new TarScanner((m) => {
      try {
        p.add(m.path);
      } catch (e) {
        if (!(e instanceof WhiteoutError)) throw e;
        refused ??= new AgentError("oci_image", `${name}: ${lname}: ${e.message}`, { reference: name, layer: layer.digest });
        throw new TarScanError(e.message);
      }
    });
    const tarOpts: TarOptions = {
      ...o.tar,
      extraArgs: [...(o.tar?.extraArgs ?? []), `--exclude=${WHITEOUT_EXCLUDE}`],
      decoder: () => layerDecoder(layer.compression, scanner, lname),
    };
    return tarExtractor(tarOpts)(root);
  };
  const url = client.blobUrl(layer.digest);
  let p: Pass;
  try {
    p = await streamPass(
      {
        http: o.http,
        url,
        root: o.root,
        log: o.log,
        what: `${name} ${lname}`,
        headers: () => client.headers(),
        onUnauthorized: () => client.reauthenticate(),
        maxRedirects: 3,
        ...(o.stallMs !== undefined ? { stallMs: o.stallMs } : {}),
        ...(o.minBytesPerStall !== undefined ? { minBytesPerStall: o.minBytesPerStall } : {}),
        ...(o.retry ? { retry: o.retry } : {}),
        ...(o.unpackStallMs !== undefined ? { unpackStallMs: o.unpackStallMs } : {}),
        ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
        ...(o.progressMs !== undefined ? { progressMs: o.progressMs } : {}),
        ...(o.env ? { env: o.env } : {}),
      },
      { algo: "sha256", hex: layer.digest.slice("sha256:".length) },
      factory,
      // a layer restarted from byte 0 is unpacked over itself: the layers below stay
      async () => {},
      deadline,
    );
  } catch (e) {
    throw refused ?? e;
  }
  if (refused) throw refused;
  if (p.digest !== layer.digest.slice("sha256:".length)) return { got: `sha256:${p.digest}` };
  if (p.unpack) {
    throw new AgentError("image_unpack", `${name}: ${lname} (digest right) could not be unpacked (${exitWords(p.unpack)}): ${p.unpack.stderr.slice(-5).join(" | ")}`, {
      reference: name,
      layer: layer.digest,
      tar: p.unpack.stderr.slice(-5),
    });
  }
  const w = applyWhiteouts(o.root, planner.plan());
  logEvent(
    o.log,
    "install.oci.layer",
    { reference: name, layer: layer.digest, index: layer.index, bytes: p.bytes, resumes: p.resumes, restarts: p.restarts, whiteouts: w.removed },
    `oci: ${lname}: ${p.bytes} bytes verified, ${w.removed} path(s) whited out${p.resumes ? `, resumed ${p.resumes} time(s)` : ""}`,
  );
  return { digest: layer.digest, mediaType: layer.mediaType, bytes: p.bytes, resumes: p.resumes, whiteouts: w.removed };
}
