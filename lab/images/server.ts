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
  const handle = (req: IncomingMessage, res: ServerResponse) => {
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
    let start = 0;
    let status = 200;
    const headers: Record<string, string> = { "content-type": "application/octet-stream" };
    if (state.ranges) headers["accept-ranges"] = "bytes";
    const m = range && state.ranges ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m) {
      start = Number(m[1]);
      status = 206;
      headers["content-range"] = `bytes ${start}-${data.length - 1}/${data.length}`;
    }
    const fault = req.method === "HEAD" ? undefined : state.faults.find((f) => f.path === path && f.times > 0);
    if (fault) fault.times--;
    if (fault?.kind !== "endless") headers["content-length"] = String(data.length - start);
    state.requests.push({ path, range, status });
    res.writeHead(status, headers);
    if (req.method === "HEAD") return void res.end();
    if (fault?.kind === "endless") {
      // Chunked: the file, then 64 KiB of zeros whenever the socket drains, until the client closes.
      const zeros = Buffer.alloc(64 << 10);
      let sent = 0;
      const more = (): void => {
        while (!res.destroyed && sent < ENDLESS_MAX) {
          sent += zeros.length;
          if (!res.write(zeros)) return void res.once("drain", more);
        }
        res.end();
      };
      res.write(data.subarray(start), more);
      return;
    }
    let body = data.subarray(start);
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
  };
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url.port = String((server.address() as AddressInfo).port);
  state.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

if (import.meta.main) {
  // bun lab/images/server.ts DIR [CERT.pem KEY.pem]: serves DIR (https with a cert) until killed; prints "PORT <n>".
  const [dir = ".", cert, key] = process.argv.slice(2);
  const s = await startImageServer(dir, cert && key ? { tls: { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") } } : {});
  process.stdout.write(`PORT ${s.url.port}\n`);
}
