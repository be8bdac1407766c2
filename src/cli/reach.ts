/**
 * `metal-hammer reach`: can this machine reach metal-boot, the apiserver (with its
 * token) and the image cache? One row per server: ok/failed, address used, latency,
 * error. Exits with the first failure's code.
 */
import type { Command } from "commander";
import { ConnectClient } from "../api/client.ts";
import { reportBooted } from "../api/report-boot.ts";
import { fetchBootConfig, type BootFetch } from "../boot/client.ts";
import { machineId } from "../boot/uuid.ts";
import { AgentError, toAgentError } from "../errors.ts";
import { services } from "../flow/services.ts";
import { HttpClient } from "../http/client.ts";
import { imageUrl, probeImage, verifyImage } from "../image/probe.ts";
import { addAgentOptions, agentConfig, agentServices, type AgentOptions } from "./agent-options.ts";
import type { Context } from "./context.ts";
import { printTable } from "./print.ts";

export interface ReachRow {
  target: "metal-boot" | "apiserver" | "image-cache";
  ok: boolean;
  url: string | null;
  address: string | null;
  latencyMs: number | null;
  detail: string | null;
  error: string | null;
  code: string | null;
}

/** A short retry bound: reach is for a person at a debug shell. */
const REACH_RETRY = { attempts: 3, baseMs: 200, capMs: 1_000, totalMs: 5_000 };

async function probe(row: Omit<ReachRow, "ok" | "address" | "latencyMs" | "error" | "code" | "detail">, fn: () => Promise<{ address: string | undefined; latencyMs: number; detail?: string }>): Promise<ReachRow> {
  try {
    const r = await fn();
    return { ...row, ok: true, address: r.address ?? null, latencyMs: r.latencyMs, detail: r.detail ?? null, error: null, code: null };
  } catch (e) {
    const err = toAgentError(e);
    return { ...row, ok: false, address: null, latencyMs: null, detail: null, error: err.message, code: err.code };
  }
}

export function registerReach(program: Command, ctx: Context): void {
  addAgentOptions(program.command("reach").description("probe metal-boot, the apiserver (with the machine token) and the image cache"))
    .option("--json", "print JSON")
    .option("--verify-image", "also download the image and check its size and checksum")
    .action(async (opts: AgentOptions & { json?: boolean; verifyImage?: boolean }) => {
      const config = await agentConfig(ctx, opts);
      const log = ctx.logger(config.logLevel);
      const given = agentServices(ctx, opts);
      const http = new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log, retry: REACH_RETRY });
      const s = services(config, { log, secrets: ctx.secrets, services: { ...given, http } });
      const rows: ReachRow[] = [];
      let errors: AgentError[] = [];
      try {
        let boot: BootFetch | undefined;
        let uuid: string | undefined;
        rows.push(
          await probe({ target: "metal-boot", url: config.metalBootUrl.href }, async () => {
            uuid = (await machineId(config.uuid, s.readFile, s.sysRoot)).uuid;
            boot = await fetchBootConfig(http, config.metalBootUrl, uuid, ctx.secrets);
            if (boot.config.ca) http.addCa(boot.config.ca, "the CA from metal-boot");
            return { ...boot, detail: `uuid ${uuid}, partition ${boot.config.partition}` };
          }),
        );
        const b = boot;
        const skipped = (target: ReachRow["target"]): ReachRow => ({ target, ok: false, url: null, address: null, latencyMs: null, detail: null, error: "skipped: metal-boot gave no config", code: "metal_boot" });
        if (b && uuid) {
          const id = uuid;
          rows.push(
            await probe({ target: "apiserver", url: b.config.apiserverUrl.href }, async () => {
              const r = await reportBooted(new ConnectClient(http, b.config.apiserverUrl, b.config.token), id, "metal-hammer reach: apiserver probe");
              return { ...r, detail: "EventService/Send accepted the token" };
            }),
          );
          const path = b.config.imagePath;
          rows.push(
            await probe({ target: "image-cache", url: (path ? imageUrl(b.config.imageCacheUrl, path) : b.config.imageCacheUrl).href }, async () => {
              if (!path) {
                const res = await http.request({ method: "HEAD", url: b.config.imageCacheUrl, what: "image cache (base URL)" });
                if (res.status >= 500) throw new AgentError("image_cache", `image cache: HEAD answered ${res.status}`, {});
                return { ...res, detail: `HEAD ${res.status} (no image path from metal-boot)` };
              }
              const url = imageUrl(b.config.imageCacheUrl, path);
              const p = await probeImage(http, url);
              const v = opts.verifyImage ? await verifyImage(http, p, url) : undefined;
              const verified = v ? `, verified in ${v.ms} ms` : "";
              return { ...p, detail: `${p.size ?? "?"} bytes, ${p.checksum.algo}:${p.checksum.hex.slice(0, 16)}...${verified}` };
            }),
          );
        } else {
          rows.push(skipped("apiserver"), skipped("image-cache"));
        }
      } finally {
        await http.close();
      }
      if (opts.json) ctx.io.out(ctx.secrets.scrub(JSON.stringify({ ok: rows.every((r) => r.ok), targets: rows })) + "\n");
      else
        printTable(
          ctx,
          ["TARGET", "STATUS", "ADDRESS", "LATENCY", "DETAIL"],
          rows.map((r) => [r.target, r.ok ? "ok" : "failed", r.address ?? "-", r.latencyMs === null ? "-" : `${r.latencyMs} ms`, r.ok ? (r.detail ?? "") : (r.error ?? "")]),
        );
      errors = rows.filter((r) => !r.ok && !r.error?.startsWith("skipped")).map((r) => new AgentError((r.code ?? "internal") as AgentError["code"], `reach: ${r.target} failed: ${r.error}`, {}));
      if (errors[0]) throw errors[0];
    });
}
