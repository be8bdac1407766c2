/**
 * The SCSI (SAS) drive's own erase, through sg3_utils: SANITIZE (crypto, block erase,
 * overwrite with zeroes) and FORMAT UNIT. Both are started with IMMED set (`--early`:
 * the tool returns at once, `--quick`: without its 15 s pause for a human to think
 * again) and then followed with REQUEST SENSE (`sg_requests`), whose sense data carries
 * the progress, until nothing is in progress any more.
 */
import type { Logger } from "../../platform/log/logger.ts";
import type { DiskFacts } from "./disk-facts.ts";
import type { DiskIo } from "./io.ts";
import { parseRequestSense } from "./scsi-id.ts";
import type { SanitizeAction } from "./wipe-plan.ts";
import { pollUntilDone, tool } from "./wipe-step.ts";

interface ScsiOptions {
  readonly io: DiskIo;
  readonly log: Logger;
  readonly toolTimeoutMs: number;
}

const SANITIZE_ARGS: Record<SanitizeAction, string[]> = {
  crypto: ["--crypto"],
  block: ["--block"],
  overwrite: ["--overwrite", "--zero"],
};

async function untilDone(o: ScsiOptions, d: DiskFacts, method: string, timeoutMs: number): Promise<void> {
  await pollUntilDone(
    o,
    { disk: d.name, method, device: d.path },
    timeoutMs,
    async () => {
      const s = parseRequestSense(await tool(o.io, ["sg_requests", d.path], o.toolTimeoutMs));
      return { state: s.state, progress: s.percent === undefined ? undefined : s.percent / 100 };
    },
    true,
  );
}

export async function scsiSanitize(o: ScsiOptions, d: DiskFacts, action: SanitizeAction, method: string, timeoutMs: number): Promise<void> {
  await tool(o.io, ["sg_sanitize", "--quick", "--early", ...SANITIZE_ARGS[action], d.path], o.toolTimeoutMs);
  await untilDone(o, d, method, timeoutMs);
}

export async function scsiFormat(o: ScsiOptions, d: DiskFacts, method: string, timeoutMs: number): Promise<void> {
  await tool(o.io, ["sg_format", "--format", "--quick", "--early", d.path], o.toolTimeoutMs);
  await untilDone(o, d, method, timeoutMs);
}
