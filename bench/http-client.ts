/**
 * The agent's HTTP client (undici Agent over npm undici) against Bun's built-in fetch
 * with `tls: { ca }`, for the same TLS server on ::1 with a private CA: sequential GETs,
 * median and p95 latency, first-request latency (handshake included), RSS growth.
 * Run: bun bench/http-client.ts [requests]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient } from "../src/clients/http/http-client.ts";
import { silentLogger } from "../src/platform/log/logger.ts";
import { makeCa, makeServerCert } from "../lab/standins/pki.ts";

const N = Number(process.argv[2] ?? 500);
const dir = mkdtempSync(join(tmpdir(), "mha-bench-"));
const ca = makeCa(dir, "bench-ca");
const cert = makeServerCert(ca, "bench", ["::1"], ["localhost"]);
const body = JSON.stringify({ partition: "p", token: "x".repeat(200) });
const server = Bun.serve({ hostname: "::1", port: 0, tls: cert, fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) });
const url = new URL(`https://[::1]:${server.port}/config/x`);

async function measure(name: string, get: () => Promise<void>) {
  Bun.gc(true);
  const rss0 = process.memoryUsage().rss;
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await get();
    times.push(performance.now() - t);
  }
  const first = times[0] ?? 0;
  const sorted = times.slice(1).sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  Bun.gc(true);
  const rss = (process.memoryUsage().rss - rss0) / 1024 / 1024;
  return { name, first: first.toFixed(2), median: q(0.5).toFixed(3), p95: q(0.95).toFixed(3), total: times.reduce((a, b) => a + b, 0).toFixed(0), rssMiB: rss.toFixed(1) };
}

const http = new HttpClient({ caBundle: ca.certFile, allowHttp: false, log: silentLogger() });
const caPem = readFileSync(ca.certFile, "utf8");
const rows = [
  // Bun fetch first: whichever runs first pays for warming shared code (TLS, JIT).
  await measure("Bun fetch + tls.ca", async () => {
    const r = await fetch(url, { tls: { ca: caPem } } as RequestInit);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(String(r.status));
  }),
  await measure("HttpClient (npm undici Agent)", async () => {
    const r = await http.request({ method: "GET", url, what: "bench" });
    if (r.status !== 200) throw new Error(String(r.status));
  }),
];
console.log(`${N} sequential GETs over TLS on [::1] (ms; rss growth in MiB)`);
console.table(rows);
await http.close();
server.stop(true);
rmSync(dir, { recursive: true, force: true });
