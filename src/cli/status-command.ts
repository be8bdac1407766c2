/**
 * `metal-hammer status [--json] [--file F]`, for the debug shell: what the running agent
 * last wrote to /run/metal/status.json (stage, clock, watchdog, log shipping, planned
 * reboot). Only reads the file.
 */
import type { Command } from "commander";
import { AgentError } from "../platform/errors.ts";
import { statusLines } from "../ops/status/sections.ts";
import { STATUS_FILE, StatusSchema } from "../ops/status/status-file.ts";
import type { Context } from "../platform/io/context.ts";

export function registerStatus(program: Command, ctx: Context): void {
  program
    .command("status")
    .description("the running agent's status: stage, clock offset and last sync, watchdog, log shipping counters, planned reboot")
    .option("--file <path>", "status file to read", STATUS_FILE)
    .option("--json", "print JSON")
    .action(async (opts: { file: string; json?: boolean }) => {
      let text: string;
      try {
        text = new TextDecoder().decode(await ctx.io.readFile(opts.file));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? (/ENOENT/.test(String(e)) ? "ENOENT" : "error");
        throw new AgentError(
          "usage",
          `cannot read the status file ${opts.file} (${code}): expected the file the running agent writes (it appears once the agent has started; --file PATH for another one)`,
          { path: opts.file },
        );
      }
      let parsed;
      try {
        parsed = StatusSchema.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        const where = parsed && !parsed.success ? ` (${parsed.error.issues[0]?.path.join(".") || "document"}: ${parsed.error.issues[0]?.message})` : " (not JSON)";
        throw new AgentError("usage", `the status file ${opts.file} is not a metal-hammer status document${where}`, { path: opts.file });
      }
      if (opts.json) {
        ctx.io.out(ctx.secrets.scrub(JSON.stringify(parsed.data)) + "\n");
        return;
      }
      const lines = statusLines(parsed.data);
      const width = Math.max(...lines.map(([k]) => k.length));
      ctx.io.out(ctx.secrets.scrub(lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n")) + "\n");
    });
}
