/**
 * The lab's operations servers, in the lab netns: an SNTP stand-in (correct time) on
 * UDP [addr]:123 and the Loki stand-in on TCP [addr]:3100 (the TCP port the lab waits
 * for). `bun lab-ops-servers.ts --addr fd6d:686c:0:ffff::1`
 */
import { startLoki } from "../../../lab/standins/loki.ts";
import { startStandin } from "./sntp-standin.ts";

export const LOKI_PORT = 3100;

if (import.meta.main) {
  const i = process.argv.indexOf("--addr");
  const addr = i > 0 ? process.argv[i + 1]! : "::1";
  await startStandin(addr, 123, "correct");
  const loki = startLoki(addr, LOKI_PORT);
  console.log(`sntp on [${addr}]:123, loki on ${loki.pushUrl.href}`);
}
