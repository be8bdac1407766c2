// The second floor for bench/startup.ts: the runtime plus the CLI library of the design
// card (commander) parsing one subcommand, and nothing of the agent.
import { Command } from "commander";

const program = new Command("cli-floor").exitOverride();
program.command("version").action(() => console.log("cli-floor"));
program
  .command("config")
  .allowUnknownOption()
  .option("--cmdline <text>")
  .option("--json")
  .action(() => console.log("{}"));
await program.parseAsync(process.argv.slice(2), { from: "user" });
