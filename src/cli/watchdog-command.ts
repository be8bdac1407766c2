/**
 * `metal-hammer watchdog test [--timeout D] [--device P]`, for the debug shell: arms the
 * hardware watchdog exactly as the agent does, then stops: nothing pings any more, so
 * the machine must reset within the timeout (measured in QEMU for the i6300esb: one
 * timeout after the last ping, test/e2e/clock.test.ts). Proves that this machine's watchdog really resets it.
 * With --magic-close it disarms the watchdog instead, as the agent does before reboot
 * and kexec, and waits two timeouts and more: the machine must keep running.
 */
import type { Command } from "commander";
import { parseDuration } from "../config/duration.ts";
import { AgentError } from "../platform/errors.ts";
import { hangForever } from "../ops/operations/hang.ts";
import { WATCHDOG_DEVICE } from "../platform/sys/watchdog-device.ts";
import { startWatchdog } from "../ops/watchdog/start-watchdog.ts";
import type { WatchdogStatus } from "../ops/watchdog/watchdog.ts";
import type { Context } from "../platform/io/context.ts";

export function registerWatchdog(program: Command, ctx: Context): void {
  const wd = program.command("watchdog").description("hardware watchdog checks for the debug shell");
  wd.command("test")
    .description("arm the hardware watchdog and stop pinging it: the machine must reset within the timeout")
    .option("--timeout <duration>", "watchdog timeout, e.g. 10s", "10s")
    .option("--device <path>", "watchdog device", WATCHDOG_DEVICE)
    .option("--magic-close", "disarm with the magic character instead, then wait: the machine must keep running")
    .action(async (opts: { timeout: string; device: string; magicClose?: boolean }) => {
      const ms = parseDuration(opts.timeout);
      if (ms === undefined || ms < 1000 || ms > 3_600_000 || ms % 1000 !== 0)
        throw new AgentError("usage", `--timeout ${JSON.stringify(opts.timeout)}: expected whole seconds between 1s and 1h, like 10s`, {});
      const log = ctx.logger("info");
      const w = startWatchdog({ enabled: true, timeoutS: ms / 1000 }, { log, path: opts.device });
      if (w.status.state !== "armed") throw new AgentError("usage", `${opts.device}: no watchdog to test (${w.status.reason ?? w.status.state})`, { device: opts.device });
      const timeoutS = w.status.timeoutS ?? ms / 1000;
      if (opts.magicClose) {
        w.close("watchdog test --magic-close");
        const after: WatchdogStatus = w.status;
        if (after.state !== "closed")
          throw new AgentError("internal", `${opts.device}: the magic close failed (${after.reason ?? after.state}); the machine may reset`, { device: opts.device });
        const waitMs = 2 * timeoutS * 1000 + 2000;
        ctx.io.err(`watchdog test: ${opts.device} disarmed with the magic character; waiting ${waitMs / 1000} s (two timeouts and more): the machine must keep running\n`);
        await Bun.sleep(waitMs);
        ctx.io.out(`watchdog test: still running ${waitMs / 1000} s after the magic close\n`);
        return;
      }
      ctx.io.err(`watchdog test: ${opts.device} armed with a ${timeoutS} s timeout; not pinging any more, the machine should reset now\n`);
      hangForever();
    });
}
