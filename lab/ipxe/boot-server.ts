/**
 * metal-boot stand-in, boot side (lab only, plain http: Debian's iPXE trusts only its
 * built-in roots). `bun lab/ipxe/boot-server.ts <config.json> <requests.jsonl>`
 *
 *   GET /boot.ipxe                      per partition, chosen by the source prefix
 *   GET /p/<partition>/vmlinuz          the partition's kernel
 *   GET /p/<partition>/initrd-<v>.img   the partition's initrd (version in the name)
 *   GET /p/<partition>/<name>           an extra initrd (e.g. the installation CA)
 *   GET /lab/report?...                 the marker initrd reports what it was served
 *
 * Every request is appended to the request log (boot-request-log.ts). Prints
 * "boot-server listening on <url>" when ready.
 */
import { appendFileSync } from "node:fs";
import { renderBootScript } from "./boot-script.ts";
import { extraInitrdPath, initrdPath, kernelPath, parseBootServerConfig, partitionFor, type Partition } from "./partitions.ts";
import { encodeEntry, type RequestLogEntry } from "./boot-request-log.ts";

const [configPath, logPath] = process.argv.slice(2);
if (!configPath || !logPath) {
  console.error("usage: boot-server.ts <config.json> <requests.jsonl>");
  process.exit(2);
}
const config = parseBootServerConfig(await Bun.file(configPath).json());

const files = new Map<string, { partition: Partition; file: string }>();
for (const p of config.partitions) {
  const served: [string, string][] = [[kernelPath(p), p.kernel], [initrdPath(p), p.initrd], ...p.extraInitrds.map((x): [string, string] => [extraInitrdPath(p, x.name), x.path])];
  for (const [path, file] of served) {
    if (!(await Bun.file(file).exists())) throw new Error(`boot server config: partitions.${p.name}: ${file}: no such file`);
    files.set(path, { partition: p, file });
  }
}

function record(e: RequestLogEntry): void {
  appendFileSync(logPath as string, encodeEntry(e));
}

/** Wraps a file body so the log line is written when its last byte has been read out. */
function countedBody(file: string, done: (bytes: number) => void): ReadableStream<Uint8Array> {
  let bytes = 0;
  return Bun.file(file)
    .stream()
    .pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          bytes += chunk.byteLength;
          ctl.enqueue(chunk);
        },
        flush() {
          done(bytes);
        },
      }),
    );
}

function serve(req: Request, srv: { requestIP(r: Request): { address: string } | null }): Response {
  const start = Date.now();
  const url = new URL(req.url);
  const src = srv.requestIP(req)?.address ?? "unknown";
  const base = { start, method: req.method, path: url.pathname + url.search, src, origin: `${url.protocol}//${url.hostname}` };
  const reply = (status: number, body: string, partition?: string): Response => {
    const bytes = Buffer.byteLength(body);
    record({ ...base, end: Date.now(), status, bytes, ...(partition ? { partition } : {}) });
    return new Response(req.method === "HEAD" ? null : body, { status, headers: { "content-type": "text/plain" } });
  };
  if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "method not allowed\n");
  if (url.pathname === "/boot.ipxe") {
    const p = partitionFor(src, config.partitions);
    if (!p) return reply(403, `no partition's boot prefix holds ${src}\n`);
    return reply(200, renderBootScript(p, config.publicUrl, src), p.name);
  }
  if (url.pathname === "/lab/report") return reply(200, "reported\n", partitionFor(src, config.partitions)?.name);
  const f = files.get(url.pathname);
  if (!f) return reply(404, `not served by the boot side stand-in: ${url.pathname}\n`);
  const size = Bun.file(f.file).size;
  const body = countedBody(f.file, (bytes) => record({ ...base, end: Date.now(), status: 200, bytes, partition: f.partition.name }));
  return new Response(body, { headers: { "content-type": "application/octet-stream", "content-length": String(size) } });
}

const server = Bun.serve({ hostname: config.listen.host, port: config.listen.port, idleTimeout: 60, fetch: serve });
const tls = config.tls;
const tlsServer = tls
  ? Bun.serve({ hostname: config.listen.host, port: tls.port, idleTimeout: 60, tls: { cert: Bun.file(tls.cert), key: Bun.file(tls.key) }, fetch: serve })
  : undefined;

console.log(`boot-server listening on ${server.url.href}${tlsServer ? ` and ${tlsServer.url.href}` : ""}`);
for (const sig of ["SIGTERM", "SIGINT"] as const)
  process.on(sig, () => {
    server.stop(true);
    tlsServer?.stop(true);
    process.exit(0);
  });
