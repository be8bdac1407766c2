/**
 * `metal-hammer kconfig check`: checks a kernel .config against the embedded fragment
 * (kernel-config/metal-hammer.config). Prints the table or JSON on stdout, then fails
 * with kconfig_failed (exit 40) when a required option is missing or wrong.
 */
import type { Command } from "commander";
import { AgentError } from "../platform/errors.ts";
import { evaluate } from "../kernel/kconfig/evaluate.ts";
import { loadDotConfig, loadFragment, loadModuleSet } from "../kernel/kconfig/load.ts";
import { failedOptions, formatTable } from "../kernel/kconfig/kconfig-report.ts";
import type { Context } from "../platform/io/context.ts";

interface CheckOptions {
  config: string;
  modules?: string;
  fragment?: string;
  json?: boolean;
}

export function registerKconfig(program: Command, ctx: Context): void {
  const kconfig = program.command("kconfig").description("kernel configuration the agent needs (kernel-config/)");
  kconfig
    .command("check")
    .description("check a kernel .config against the metal-hammer fragment; exit 40 when a requirement fails")
    .requiredOption("--config <file>", "the kernel .config (e.g. /boot/config-$(uname -r))")
    .option("--modules <list-or-path>", "the initramfs module set: a comma list, a list file (names or modules.dep lines) or a directory of *.ko[.xz|.zst]")
    .option("--fragment <file>", "check against this fragment instead of the embedded one")
    .option("--json", "print JSON")
    .action(async (opts: CheckOptions) => {
      const fragment = await loadFragment(ctx.io, opts.fragment);
      const config = await loadDotConfig(ctx.io, opts.config);
      const modules = opts.modules === undefined ? undefined : await loadModuleSet(ctx.io, opts.modules);
      const report = evaluate(fragment, config, modules);
      ctx.io.out(opts.json ? JSON.stringify(report, null, 2) + "\n" : formatTable(report));
      if (report.verdict === "fail") {
        throw new AgentError("kconfig_failed", `kernel config check failed: ${report.counts.fail} requirement(s) not met: ${failedOptions(report)}`, {
          failed: report.counts.fail,
        });
      }
    });
  kconfig.exitOverride().configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) });
}
