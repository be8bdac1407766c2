import type { Command } from "commander";
import { describeCarried, readCarriedInstaller } from "../install/carried-installer.ts";
import { versionInfo } from "../platform/version.ts";
import type { Context } from "../platform/io/context.ts";

export function registerVersion(program: Command, ctx: Context): void {
  program
    .command("version")
    .description("print version, git commit, Bun version, build target and the os-installer the initramfs carries")
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }) => {
      const v = versionInfo();
      const c = readCarriedInstaller();
      if (opts.json) {
        ctx.io.out(JSON.stringify({ ...v, osInstaller: c.present ? c.info : null }) + "\n");
        return;
      }
      ctx.io.out(`metal-hammer ${v.version} (commit ${v.commit}, bun ${v.bun}, target ${v.target})\n`);
      ctx.io.out(c.present ? `carries ${describeCarried(c.info)} at ${c.path}\n` : `carries no os-installer: ${c.why}\n`);
    });
}
