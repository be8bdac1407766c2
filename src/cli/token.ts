/**
 * `metal-hammer token`: fetch config and token from metal-boot and show what may be
 * shown: uuid, partition, servers, and the token's kind, subject and expiry. Never
 * the token.
 */
import type { Command } from "commander";
import { fetchBootConfig } from "../boot/client.ts";
import { MachineToken } from "../boot/machine-token.ts";
import { machineId } from "../boot/uuid.ts";
import { services } from "../flow/services.ts";
import { addAgentOptions, agentConfig, agentServices, type AgentOptions } from "./agent-options.ts";
import type { Context } from "./context.ts";
import { printRecord } from "./print.ts";

export function registerToken(program: Command, ctx: Context): void {
  addAgentOptions(program.command("token").description("fetch config and machine token from metal-boot; show the token's metadata, never the token"))
    .option("--json", "print JSON")
    .action(async (opts: AgentOptions & { json?: boolean }) => {
      const config = await agentConfig(ctx, opts);
      const log = ctx.logger(config.logLevel);
      const s = services(config, { log, secrets: ctx.secrets, services: agentServices(ctx, opts) });
      try {
        const id = await machineId(config.uuid, s.readFile, s.sysRoot);
        const got = await fetchBootConfig(s.http, config.metalBootUrl, id.uuid, ctx.secrets);
        const token = new MachineToken(got.config.token);
        const view = {
          uuid: id.uuid,
          uuidSource: id.source,
          metalBoot: got.url.href,
          address: got.address ?? null,
          latencyMs: got.latencyMs,
          partition: got.config.partition,
          apiserverUrl: got.config.apiserverUrl.href,
          imageCacheUrl: got.config.imageCacheUrl.href,
          imagePath: got.config.imagePath ?? null,
          ntpServers: got.config.ntpServers,
          caFromMetalBoot: got.config.ca !== undefined,
          token: { ...token.info },
        };
        printRecord(ctx, view, opts.json === true);
      } finally {
        await s.http.close();
      }
    });
}
