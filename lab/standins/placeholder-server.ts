/**
 * PLACEHOLDER until the metal-boot stand-in lands (lab/standins/): listens on one
 * IPv6 address, answers every request 503 "placeholder", and logs each request as a
 * JSON line on stdout (the lab saves it as servers/<name>.log).
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { addr: { type: "string" }, port: { type: "string" }, name: { type: "string", default: "placeholder" } } });
if (!values.addr || !values.port) {
  process.stderr.write("usage: placeholder-server.ts --addr <ipv6> --port <n>\n");
  process.exit(2);
}
const server = Bun.serve({
  hostname: values.addr,
  port: Number(values.port),
  fetch(req, srv) {
    const ip = srv.requestIP(req);
    process.stdout.write(
      JSON.stringify({ time: new Date().toISOString(), server: values.name, method: req.method, path: new URL(req.url).pathname, from: ip?.address ?? null }) + "\n",
    );
    return new Response("placeholder: the metal-boot stand-in is not built yet\n", { status: 503 });
  },
});
process.stdout.write(JSON.stringify({ time: new Date().toISOString(), server: values.name, listening: `[${values.addr}]:${server.port}` }) + "\n");
for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => process.exit(0));
