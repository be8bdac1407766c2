/**
 * `metal-hammer reach`: can this machine reach metal-boot, the apiserver (with its
 * token) and the image cache? One row per server: ok/failed/skipped, address used,
 * latency, detail or error. Exits with the first failure's code.
 */
import type { Command } from "commander";
import { ConnectClient } from "../api/client.ts";
import { reportBooted } from "../api/report-boot.ts";
import { fetchBootConfig, type BootFetch } from "../boot/client.ts";
import { machineId } from "../boot/uuid.ts";
import { AgentError, toAgentError, type ErrorCode } from "../errors.ts";
import { services } from "../flow/services.ts";
import { HttpClient } from "../http/client.ts";
import { imageUrl, probeImageCache } from "../image/probe.ts";
import { addAgentOptions, agentConfig, agentServices, type AgentOptions } from "./agent-options.ts";
import type { Context } from "./context.ts";
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

const skipped = (target: Target): ReachRow => ({ target, status: "skipped", ok: false, url: null, address: null, latencyMs: null, detail: null, error: "skipped: metal-boot gave no config", code: null });

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

export function registerReach(program: Command, ctx: Context): void {
  addAgentOptions(program.command("reach").description("probe metal-boot, the apiserver (with the machine token) and the image cache"))
    .option("--json", "print JSON")
    .option("--verify-image", "also download the image and check its size and checksum")
    .action(async (opts: AgentOptions & { json?: boolean; verifyImage?: boolean }) => {
      const config = await agentConfig(ctx, opts);
      const log = ctx.logger(config.logLevel);
      const http = new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log, retry: REACH_RETRY });
      const s = services(config, { log, secrets: ctx.secrets, services: { ...agentServices(ctx, opts), http } });
      const rows: ReachRow[] = [];
      try {
        let got: { boot: BootFetch; uuid: string } | undefined;
        rows.push(
          await probe("metal-boot", config.metalBootUrl.href, async () => {
            const uuid = (await machineId(config.uuid, s.readFile, s.sysRoot)).uuid;
            const boot = await fetchBootConfig(http, config.metalBootUrl, uuid, ctx.secrets);
            if (boot.config.ca) http.addCa(boot.config.ca, "the CA from metal-boot");
            got = { boot, uuid };
            return { ...boot, detail: `uuid ${uuid}, partition ${boot.config.partition}` };
          }),
        );
        if (got) {
          const { boot, uuid } = got;
          const c = boot.config;
          rows.push(
            await probe("apiserver", c.apiserverUrl.href, async () => {
              const r = await reportBooted(new ConnectClient(http, c.apiserverUrl, c.token), uuid, "metal-hammer reach: apiserver probe");
              return { ...r, detail: "EventService/Send accepted the token" };
            }),
          );
          const shown = c.imagePath ? imageUrl(c.imageCacheUrl, c.imagePath) : c.imageCacheUrl;
          rows.push(
            await probe("image-cache", shown.href, async () => {
              const p = await probeImageCache(http, c.imageCacheUrl, c.imagePath, opts.verifyImage === true);
              const what = p.checksum ? `${p.size ?? "?"} bytes, ${p.checksum.slice(0, 23)}...` : "answers (no image path from metal-boot)";
              return { ...p, detail: `${what}${p.verified ? `, verified in ${p.verified.ms} ms` : ""}` };
            }),
          );
        } else {
          rows.push(skipped("apiserver"), skipped("image-cache"));
        }
      } finally {
        await http.close();
      }
      printRows(ctx, rows, opts.json === true);
      const failed = rows.find((r) => r.status === "failed");
      if (failed) throw new AgentError(failed.code ?? "internal", `reach: ${failed.target} failed: ${failed.error}`, { target: failed.target });
    });
}
