/**
 * `metal-hammer token`: fetch config and token from metal-boot and show what may be
 * shown: uuid, partition, servers, and the token's kind, subject and expiry. Never
 * the token.
 */
import type { Command } from "commander";
import { fetchBootConfig } from "../clients/metal-boot/metal-boot-client.ts";
import { MachineToken } from "../clients/metal-boot/machine-token.ts";
import { machineId } from "../clients/metal-boot/machine-uuid.ts";
import { compose } from "../agent/compose.ts";
import { addAgentOptions, agentConfig, agentPaths, type AgentOptions } from "./agent-options.ts";
import type { Context } from "../platform/io/context.ts";
import { printRecord } from "./print.ts";

export function registerToken(program: Command, ctx: Context): void {
  addAgentOptions(program.command("token").description("fetch config and machine token from metal-boot; show the token's metadata, never the token"))
    .option("--json", "print JSON")
    .action(async (opts: AgentOptions & { json?: boolean }) => {
      const config = await agentConfig(ctx, opts);
      const s = compose(ctx, agentPaths(opts), config, ctx.logger(config.logLevel, config.logFormat));
      try {
        const id = await machineId(config.uuid, s.readFile, s.sysRoot);
        const got = await fetchBootConfig(s.http, config.metalBootUrl, id.uuid, ctx.secrets);
        const c = got.config;
        const token = new MachineToken(c.metal_apiserver_token_for_hammer);
        const view = {
          uuid: id.uuid,
          uuidSource: id.source,
          metalBoot: got.url.href,
          address: got.address ?? null,
          latencyMs: got.latencyMs,
          partition: c.partition,
          apiserverUrl: c.metal_apiserver_url.href,
          imageCacheUrl: (config.imageCacheUrl ?? c.image_cache_url)?.href ?? null,
          ntpServers: c.ntp_servers,
          caFromMetalBoot: c.ca !== undefined,
          token: { ...token.info },
        };
        printRecord(ctx, view, opts.json === true);
      } finally {
        await s.http.close();
      }
    });
}
