/**
 * `metal-hammer clock [--servers LIST] [--set] [--json]`, for the debug shell: asks the
 * NTP servers (--servers, else METAL_NTP_SERVERS from the kernel cmdline) and shows how
 * far off the machine's clock is; with --set it steps the clock (and the RTC) exactly
 * as the agent's clock stage does. Without --set nothing is changed.
 */
import type { Command } from "commander";
import { parseCmdline } from "../config/cmdline.ts";
import { parseNtpServerList } from "../config/ntp-servers.ts";
import { syncClock } from "../ops/clock/sync.ts";
import { AgentError } from "../platform/errors.ts";
import type { Context } from "../platform/io/context.ts";
import { printRecord } from "./print.ts";
import { readCmdlineText } from "./read-cmdline.ts";

interface ClockOptions {
  servers?: string;
  set?: boolean;
  json?: boolean;
  cmdline?: string;
  file?: string;
}

export function registerClock(program: Command, ctx: Context): void {
  program
    .command("clock")
    .description("ask the NTP servers how far off the clock is; --set steps it (and the RTC) as the agent does")
    .option("--servers <list>", "NTP servers (default: METAL_NTP_SERVERS from the kernel cmdline)")
    .option("--set", "step the clock when it is off by 1 s or more (default: only show)")
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .option("--json", "print JSON")
    .action(async (opts: ClockOptions) => {
      let text = opts.servers;
      let from = "--servers";
      if (text === undefined) {
        text = parseCmdline(await readCmdlineText(ctx.io, opts)).params.get("METAL_NTP_SERVERS") ?? undefined;
        from = "METAL_NTP_SERVERS";
      }
      if (text === undefined) throw new AgentError("usage", "no NTP server: expected --servers LIST or METAL_NTP_SERVERS on the kernel cmdline", {});
      const servers = parseNtpServerList(text);
      if (!servers)
        throw new AgentError("usage", `${from} ${JSON.stringify(text)}: expected a comma-separated list of NTP servers (IPv6/IPv4 addresses or host names, [addr]:port)`, {});
      const log = ctx.logger("info");
      const wouldSet: number[] = [];
      const st = await syncClock(servers, opts.set ? { log } : { log, setClock: (t) => (wouldSet.push(t), 0), rtcPresent: () => false });
      const list = (a: readonly string[]) => (opts.json ? a : a.join("; "));
      printRecord(
        ctx,
        {
          servers: list(st.servers),
          decision: opts.set || st.decision !== "step" ? st.decision : "step (not done: no --set)",
          offsetMs: st.offsetMs === undefined ? null : Math.round(st.offsetMs),
          server: st.server ?? null,
          now: new Date().toISOString(),
          rtc: st.rtc,
          ...(st.reasons ? { reasons: list(st.reasons) } : {}),
          ...(st.problem ? { problem: st.problem } : {}),
        },
        opts.json === true,
      );
      if (st.decision === "unsynced") throw new AgentError("unreachable", `no usable time from ${st.servers.join(", ")}${st.problem ? `: ${st.problem}` : ""}`, {});
    });
}
