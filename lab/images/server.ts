/**
 * The image cache stand-in for the install tests: serves files of one directory over
 * plain http on loopback, with Range support (206 + Content-Range) unless switched off,
 * and faults injected per request: cut the body after N bytes, flip a byte, stall
 * (send N bytes, then nothing), trickle (send N bytes, then one byte every 100 ms),
 * endless (no Content-Length: the file, then zeros until the client goes, at most 1 GiB).
 * `requests` records what was asked (path, Range). With `tls` (cert and key, PEM) it
 * serves https instead (the bench's HTTPS run).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

export interface Fault {
  /** Applies to GETs of this path only. */
  readonly path: string;
  /** How many requests it applies to (then the file is served cleanly). */
  times: number;
  readonly kind: "cut" | "stall" | "corrupt" | "trickle" | "endless";
  /** Byte offset (in the file) where the fault hits. */
  readonly at: number;
}

export interface ImageServer {
  readonly url: URL;
  readonly requests: Array<{ path: string; range: string | null; status: number }>;
  faults: Fault[];
  ranges: boolean;
  stop(): Promise<void>;
}

/** What an endless body sends at most after the file (a bound on the fault's own loop). */
const ENDLESS_MAX = 1 << 30;

export async function startImageServer(dir: string, opts: { tls?: { cert: string; key: string } } = {}): Promise<ImageServer> {
  const state: ImageServer = {
    url: new URL(opts.tls ? "https://127.0.0.1/" : "http://127.0.0.1/"),
    requests: [],
    faults: [],
    ranges: true,
    stop: async () => {},
  };
  // node:http, not Bun.serve: it keeps our Content-Length on a streamed answer, so a
  // cut is a real short body on a closed connection, not a shorter chunked answer.
  const handle = (req: IncomingMessage, res: ServerResponse) => answer(state, dir, req, res);
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url.port = String((server.address() as AddressInfo).port);
  state.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** One GET or HEAD of a file in `dir`: 404, or its head (Range, the fault taken), then its body as the fault shapes it. */
function answer(state: ImageServer, dir: string, req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const range = req.headers.range ?? null;
  let data: Buffer;
  try {
    data = readFileSync(join(dir, path));
  } catch {
    state.requests.push({ path, range, status: 404 });
    res.writeHead(404).end("not found");
    return;
  }
  const head = answerHead(state, req.method === "HEAD", path, range, data.length);
  state.requests.push({ path, range, status: head.status });
  res.writeHead(head.status, head.headers);
  if (req.method === "HEAD") return void res.end();
  if (head.fault?.kind === "endless") return sendEndless(res, data.subarray(head.start));
  sendBody(res, data.subarray(head.start), head.start, head.fault);
}

/** The answer's status and headers for a file of `size` bytes, where its body starts (Range), and the fault this request takes (one of its `times`). */
function answerHead(
  state: ImageServer,
  isHead: boolean,
  path: string,
  range: string | null,
  size: number,
): { status: number; headers: Record<string, string>; start: number; fault?: Fault } {
  let start = 0;
  let status = 200;
  const headers: Record<string, string> = { "content-type": "application/octet-stream" };
  if (state.ranges) headers["accept-ranges"] = "bytes";
  const m = range && state.ranges ? /^bytes=(\d+)-$/.exec(range) : null;
  if (m) {
    start = Number(m[1]);
    status = 206;
    headers["content-range"] = `bytes ${start}-${size - 1}/${size}`;
  }
  const fault = isHead ? undefined : state.faults.find((f) => f.path === path && f.times > 0);
  if (fault) fault.times--;
  if (fault?.kind !== "endless") headers["content-length"] = String(size - start);
  return { status, headers, start, ...(fault ? { fault } : {}) };
}

/** Chunked: the file, then 64 KiB of zeros whenever the socket drains, until the client closes (at most ENDLESS_MAX). */
function sendEndless(res: ServerResponse, body: Buffer): void {
  const zeros = Buffer.alloc(64 << 10);
  let sent = 0;
  const more = (): void => {
    while (!res.destroyed && sent < ENDLESS_MAX) {
      sent += zeros.length;
      if (!res.write(zeros)) return void res.once("drain", more);
    }
    res.end();
  };
  res.write(body, more);
}

/** The body from `start` on, as the fault (if any) shapes it: a flipped byte, or cut, stalled or trickled at the fault's offset. */
function sendBody(res: ServerResponse, data: Buffer, start: number, fault: Fault | undefined): void {
  let body = data;
  if (fault?.kind === "corrupt" && fault.at >= start) {
    body = Buffer.from(body);
    body[fault.at - start] = (body[fault.at - start] ?? 0) ^ 0xff;
  }
  if (!fault || fault.kind === "corrupt") return void res.end(body);
  const head = body.subarray(0, Math.max(0, fault.at - start));
  // cut: the bytes up to the fault, then the connection closes (FIN once they are out: a
  // body short of its Content-Length, the client gets every byte sent; a bare destroy
  // can reset the connection and the client's kernel then drops what it had queued, so
  // where the client stands would be chance).
  // stall: the same bytes, then nothing; the client's stall detector must give up.
  // trickle: the same bytes, then one byte every 100 ms until the client gives up.
  res.write(head, () => {
    if (fault.kind === "cut") res.socket?.end() ?? res.destroy();
    if (fault.kind !== "trickle") return;
    let next = head.length;
    const t = setInterval(() => {
      if (next >= body.length || res.destroyed) return void clearInterval(t);
      res.write(body.subarray(next, next + 1));
      next++;
    }, 100);
    res.on("close", () => clearInterval(t));
  });
}

if (import.meta.main) {
  // bun lab/images/server.ts DIR [CERT.pem KEY.pem]: serves DIR (https with a cert) until killed; prints "PORT <n>".
  const [dir = ".", cert, key] = process.argv.slice(2);
  const s = await startImageServer(dir, cert && key ? { tls: { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") } } : {});
  process.stdout.write(`PORT ${s.url.port}\n`);
}
