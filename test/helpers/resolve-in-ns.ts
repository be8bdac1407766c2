/**
 * Run inside a test's namespace (`ip netns exec NS bun resolve-in-ns.ts NAME SERVER...`):
 * the agent's resolver asks SERVER(s) for NAME's AAAA records and prints one JSON line,
 * {"addresses": [...]} or {"failure", "code", "exit", "message"}, with the time it took.
 */
import { DnsError } from "../../src/network/dns/dns-error.ts";
import { Resolver } from "../../src/network/dns/resolver.ts";

const [name = "", ...servers] = process.argv.slice(2);
const t0 = performance.now();
try {
  const addresses = await new Resolver({ servers: () => servers }).aaaa(name);
  console.log(JSON.stringify({ addresses, ms: Math.round(performance.now() - t0) }));
} catch (e) {
  if (!(e instanceof DnsError)) throw e;
  console.log(JSON.stringify({ failure: e.failure, code: e.code, exit: e.exitCode, message: e.message, ms: Math.round(performance.now() - t0) }));
}
