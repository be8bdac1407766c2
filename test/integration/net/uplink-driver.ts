/**
 * Runs the uplink table (src/network/net/uplink-table.ts) inside the agent namespace
 * for test/integration/net/uplinks.test.ts: `follow NAME...` writes the uplinks'
 * tables and rules and leaves them (kernel state outlives the process);
 * `follow-close NAME...` writes them and removes them again. Prints the uplinks as JSON.
 */
import { UplinkTable } from "../../../src/network/net/uplink-table.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

const [mode, ...names] = process.argv.slice(2);
const log = createLogger({ level: "debug", format: "json", write: (l) => process.stderr.write(`${l}\n`), secrets: new SecretSet() });
const table = new UplinkTable({ log });
const uplinks = table.follow(names);
process.stdout.write(`${JSON.stringify(uplinks)}\n`);
if (mode === "follow-close") table.close();
