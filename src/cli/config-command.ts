import type { Command } from "commander";
import { configToJson } from "../config/config.ts";
import { redactFields } from "../platform/log/redact.ts";
import type { Context } from "../platform/io/context.ts";
import { printRecord } from "./print.ts";
import { loadConfig, PROC_CMDLINE } from "./read-cmdline.ts";

export function registerConfig(program: Command, ctx: Context): void {
  program
    .command("config")
    .alias("cmdline")
    .description(`parse and validate the kernel cmdline (default ${PROC_CMDLINE}) and print the configuration`)
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .option("--json", "print JSON")
    .action(async (opts: { cmdline?: string; file?: string; json?: boolean }) => {
      // Secret-named fields dropped here; printRecord escapes the text and scrubs it as a log
      // line is scrubbed (redact.ts: a URL's userinfo and ?token=, X-Amz-Signature=, ...).
      const view = redactFields(configToJson(await loadConfig(ctx.io, opts))) as Record<string, unknown>;
      printRecord(ctx, view, opts.json === true);
    });
}
