/**
 * `metal-hammer reach`: can this machine reach metal-boot, the apiserver and the image
 * cache? The apiserver as the api stage checks it: the public VersionService/Get over
 * TLS (the token is proven only by Register). The image cache: HEAD of its base URL
 * (any answer below 500); with --image PATH also that image and its checksum sidecar
 * (--verify-image downloads and checks it). One row per server: ok/failed/skipped,
 * address used, latency, detail or error. Exits with the first failure's code.
 */
import type { Command } from "commander";
import { ConnectClient } from "../clients/api/connect-client.ts";
import { apiVersion } from "../clients/api/api-version.ts";
import { fetchBootConfig, type BootFetch } from "../clients/metal-boot/metal-boot-client.ts";
import { machineId } from "../clients/metal-boot/machine-uuid.ts";
import { AgentError, toAgentError, type ErrorCode } from "../platform/errors.ts";
import { HttpClient } from "../clients/http/http-client.ts";
import { cachePath, probeCacheBase } from "../clients/image-cache/cache.ts";
import { probeOneImage } from "../clients/image-cache/probe.ts";
import { compose } from "../agent/compose.ts";
import type { Services } from "../agent/services.ts";
import type { Config } from "../config/config.ts";
import { addAgentOptions, agentConfig, agentPaths, type AgentOptions } from "./agent-options.ts";
import type { Context } from "../platform/io/context.ts";
import { printTable } from "./print.ts";

type Target = "metal-boot" | "apiserver" | "image-cache";

export interface ReachRow {
  readonly target: Target;
  readonly status: "ok" | "failed" | "skipped";
  readonly ok: boolean;
  readonly url: string | null;
  readonly address: string | null;
  readonly latencyMs: number | null;
  readonly detail: string | null;
  readonly error: string | null;
  readonly code: ErrorCode | null;
}

/** A short retry bound: reach is for a person at a debug shell. */
const REACH_RETRY = { attempts: 3, baseMs: 200, capMs: 1_000, totalMs: 5_000 };

interface Probed {
  readonly address: string | undefined;
  readonly latencyMs: number;
  readonly detail: string;
}

async function probe(target: Target, url: string, fn: () => Promise<Probed>): Promise<ReachRow> {
  try {
    const r = await fn();
    return { target, status: "ok", ok: true, url, address: r.address ?? null, latencyMs: r.latencyMs, detail: r.detail, error: null, code: null };
  } catch (e) {
    const err = toAgentError(e);
    return { target, status: "failed", ok: false, url, address: null, latencyMs: null, detail: null, error: err.message, code: err.code };
  }
}

const skipped = (target: Target, why: string): ReachRow => ({
  target,
  status: "skipped",
  ok: true,
  url: null,
  address: null,
  latencyMs: null,
  detail: null,
  error: `skipped: ${why}`,
  code: null,
});

function printRows(ctx: Context, rows: readonly ReachRow[], json: boolean): void {
  if (json) {
    ctx.io.out(ctx.secrets.scrub(JSON.stringify({ ok: rows.every((r) => r.ok), targets: rows })) + "\n");
    return;
  }
  printTable(
    ctx,
    ["TARGET", "STATUS", "ADDRESS", "LATENCY", "DETAIL"],
    rows.map((r) => [r.target, r.status, r.address ?? "-", r.latencyMs === null ? "-" : `${r.latencyMs} ms`, r.detail ?? r.error ?? ""]),
  );
}

interface ReachOpts extends AgentOptions {
  json?: boolean;
  image?: string;
  verifyImage?: boolean;
}

/** The image cache (its base URL, and with --image that image and its checksum sidecar), through the client that trusts metal-boot's CA. */
function probeImageCache(trusted: HttpClient, cache: URL | undefined, opts: ReachOpts): Promise<ReachRow> | ReachRow {
  if (!cache) return skipped("image-cache", "no image cache configured (METAL_IMAGE_CACHE_URL or image_cache_url)");
  const img = opts.image !== undefined ? cachePath(cache, opts.image) : undefined;
  return probe("image-cache", (img ?? cache).href, async () => {
    const base = await probeCacheBase(trusted, cache);
    if (!img) return { ...base, detail: `answers (HTTP ${base.status})` };
    const { probe: p, verified } = await probeOneImage(trusted, img, opts.verifyImage === true);
    return { ...p, detail: `${p.size ?? "?"} bytes, ${p.checksum.algo}:${p.checksum.hex.slice(0, 16)}...${verified ? `, verified in ${verified.ms} ms` : ""}` };
  });
}

/** What metal-boot's config names: the apiserver (VersionService/Get) and the image cache, trusting its CA as the flow does (agent/boot-facts.ts). */
async function probeAfterBoot(http: HttpClient, config: Config, got: BootFetch, opts: ReachOpts): Promise<ReachRow[]> {
  const c = got.config;
  // A derived client, closed with http.
  const trusted = http.trusting(c.ca ? [{ pem: c.ca, name: "the CA from metal-boot" }] : []);
  const api = await probe("apiserver", c.metal_apiserver_url.href, async () => {
    const v = await apiVersion(new ConnectClient(trusted, c.metal_apiserver_url, undefined));
    return { ...v, detail: `VersionService/Get: version ${v.version || "(empty)"}` };
  });
  return [api, await probeImageCache(trusted, config.imageCacheUrl ?? c.image_cache_url, opts)];
}

/** metal-boot first (the machine's config), then what its config names; a probe that cannot run says why (skipped). */
async function probeAll(ctx: Context, http: HttpClient, config: Config, s: Services, opts: ReachOpts): Promise<ReachRow[]> {
  let got: BootFetch | undefined;
  const boot = await probe("metal-boot", config.metalBootUrl.href, async () => {
    const uuid = (await machineId(config.uuid, s.readFile, s.sysRoot)).uuid;
    got = await fetchBootConfig(http, config.metalBootUrl, uuid, ctx.secrets);
    return { ...got, detail: `uuid ${uuid}, partition ${got.config.partition || "(none)"}` };
  });
  if (!got) return [boot, skipped("apiserver", "metal-boot gave no config"), skipped("image-cache", "metal-boot gave no config")];
  return [boot, ...(await probeAfterBoot(http, config, got, opts))];
}

export function registerReach(program: Command, ctx: Context): void {
  addAgentOptions(program.command("reach").description("probe metal-boot, the apiserver (VersionService/Get) and the image cache"))
    .option("--json", "print JSON")
    .option("--image <path>", "also probe this image under the cache (HEAD + checksum sidecar), e.g. debian/12/img.tar.lz4")
    .option("--verify-image", "with --image: download the image and check its size and checksum")
    .action(async (opts: ReachOpts) => {
      const config = await agentConfig(ctx, opts);
      const log = ctx.logger(config.logLevel, config.logFormat);
      const http = new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log, retry: REACH_RETRY });
      const s = compose(ctx, agentPaths(opts), config, log, { http });
      let rows: ReachRow[];
      try {
        rows = await probeAll(ctx, http, config, s, opts);
      } finally {
        await http.close();
      }
      printRows(ctx, rows, opts.json === true);
      const failed = rows.find((r) => r.status === "failed");
      if (failed) throw new AgentError(failed.code ?? "internal", `reach: ${failed.target} failed: ${failed.error}`, { target: failed.target });
    });
}
