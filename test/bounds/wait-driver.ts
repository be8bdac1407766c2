/**
 * A process that runs the agent's real Wait (src/agent/wait-stream.ts over the real
 * HttpClient and ConnectClient) against a given apiserver URL, through the real CLI
 * error path (runCli: final line, exit code) and the real output (processIo, flushed
 * before exit like main.ts). The run flow needs a network stage and metal-boot first;
 * this starts at Wait, so a hostile apiserver can be tested on loopback as a process
 * whose memory is measured.
 *
 *   bun test/bounds/wait-driver.ts <apiserver-url> <timeout-ms> [debug]
 */
import { ConnectClient } from "../../src/clients/api/connect-client.ts";
import { createContext, processIo } from "../../src/platform/io/context.ts";
import { runCli } from "../../src/cli/program.ts";
import { HttpClient } from "../../src/clients/http/http-client.ts";
import { WAIT_BACKOFF } from "../../src/agent/wait-policy.ts";
import { waitForAllocation } from "../../src/agent/wait-stream.ts";

const ctx = createContext(processIo());
const code = await runCli(process.argv.slice(2), ctx, [
  (program, c) => {
    program
      .argument("<url>")
      .argument("<timeoutMs>")
      .argument("[level]")
      .action(async (url: string, timeoutMs: string, level?: string) => {
        const log = c.logger(level === "debug" ? "debug" : "info");
        const http = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log });
        try {
          await waitForAllocation(
            new ConnectClient(http, new URL(url), "driver-token-0123456789"),
            "00000000-0000-0000-0000-000000000001",
            { ...WAIT_BACKOFF, minMs: 50, baseMs: 100, capMs: 200, timeoutMs: Number(timeoutMs) },
            log,
          );
        } finally {
          await http.close();
        }
      });
  },
]);
await ctx.io.flush?.();
process.exit(code);
