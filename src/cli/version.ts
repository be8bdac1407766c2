import type { Command } from "commander";
import { versionInfo } from "../version.ts";
import type { Context } from "../platform/io/context.ts";

export function registerVersion(program: Command, ctx: Context): void {
  program
    .command("version")
    .description("print version, git commit, Bun version and build target")
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }) => {
      const v = versionInfo();
      ctx.io.out(opts.json ? JSON.stringify(v) + "\n" : `metal-hammer ${v.version} (commit ${v.commit}, bun ${v.bun}, target ${v.target})\n`);
    });
}
