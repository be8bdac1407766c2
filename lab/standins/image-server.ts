/**
 * The image cache stand-in's HTTPS server: node:https (Bun implements it), not Bun.serve,
 * because Bun.serve sends a streamed body chunked without our Content-Length: here a cut
 * is a real TCP close with the body short of its Content-Length, as a cache node going
 * away does it. Answers the fetch-style handler's Response (image-cache.ts) and the
 * control endpoints; writes every body in 64 KiB pieces as the socket drains (one with a
 * Content-Length as its stream produces it: the trickle fault's never ends), and while
 * the drop window (image-drop.ts) is open closes each image connection after its
 * allowance of bytes (a GET the window holds, holdFor, waits at most HOLD_MAX_MS). A body shorter than its Content-Length (the `truncate` fault) ends
 * with the connection closed too. Logs every request (with the time it arrived) when its head is written.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerCert } from "./pki.ts";
import type { RequestLog } from "./request-log.ts";
import { listenNode, type Listen } from "./node-listen.ts";
import type { ImageDropWindow } from "./image-drop.ts";
import { isLocalPeer, type Peer } from "./api-server.ts";

type Control = (role: "images", path: string, req: Request, peer: Peer) => Promise<Response | undefined>;
type Handler = (req: Request) => Promise<Response>;

const PIECE = 64 << 10;
/** A GET held for the drop window's holdFor waits at most this long; then the window opens anyway. */
export const HOLD_MAX_MS = 30_000;

async function held(p: Promise<void>, drop: ImageDropWindow): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(() => (drop.open(), resolve()), HOLD_MAX_MS)))]);
  clearTimeout(timer);
}

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Writes `data`, resolving when the socket took it (false when the connection went away first). */
function write(res: ServerResponse, data: Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    const onClose = () => resolve(false);
    res.once("close", onClose);
    res.write(data, (err) => {
      res.off("close", onClose);
      resolve(!err && !res.destroyed);
    });
  });
}

/** How long a cut connection may stay half-open before it is destroyed. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Closes the connection mid-body: what was written is sent, then FIN (socket.end);
 * destroyed when the client has not closed its side within CLOSE_GRACE_MS. A bare destroy
 * can drop bytes still queued in the TLS layer under load (a cut "after 256 KiB" then
 * delivered less, seen in the fleet at load 20).
 */
function closeAfterFlush(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return void res.destroy();
  const t = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  socket.once("close", () => clearTimeout(t));
  socket.end();
}

export interface ImageServerOptions {
  readonly listen: Listen;
  readonly cert: ServerCert;
  readonly log: RequestLog;
  readonly control: Control;
  readonly handler: Handler;
  /** The path (without the leading /) whose GETs the drop window counts and cuts. */
  readonly imagePath: string;
  readonly drop: ImageDropWindow;
}

export async function serveImages(o: ImageServerOptions): Promise<{ port: number; stop(): Promise<void> }> {
  const server: Server = createServer({ cert: o.cert.cert, key: o.cert.key }, (req, res) => {
    void (async () => {
      // Logged with the time it arrived (a GET the drop window holds is answered later).
      const arrived = new Date().toISOString();
      const method = req.method ?? "GET";
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const source = req.socket.remoteAddress ?? null;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
      try {
        const body = method === "POST" ? await readBody(req) : undefined;
        const request = new Request(`https://standin${req.url ?? "/"}`, { method, headers, ...(body ? { body } : {}) });
        const isImage = method === "GET" && path === `/${o.imagePath}`;
        if (isImage) await held(o.drop.request(source, /^bytes=\d+-$/.test(headers.range ?? "")), o.drop);
        const peer = { local: isLocalPeer(req.socket.remoteAddress, req.socket.localAddress) };
        const r = (await o.control("images", path, request, peer)) ?? (await o.handler(request));
        o.log.add({ time: arrived, server: "images", method, path, source, status: r.status, headers, body: body ? new TextDecoder().decode(body) : "" });
        const length = r.headers.get("content-length");
        // A body with its length announced is streamed as it comes (the trickle fault's
        // never ends); one without (the short text answers) is read whole for its length.
        const whole = length === null && r.body !== null ? new Uint8Array(await r.arrayBuffer()) : undefined;
        const announced = Number(length ?? whole?.byteLength ?? 0);
        // Every answer with its length (a HEAD with the GET's), never chunked.
        res.writeHead(r.status, { ...Object.fromEntries(r.headers), "content-length": String(announced) });
        const cuttable = isImage && (r.status === 200 || r.status === 206);
        // Leaving the loop early (the client gone, the window's cut) cancels a streamed body.
        const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> = method === "HEAD" ? [] : whole ? [whole] : (r.body ?? []);
        let sent = 0;
        for await (const chunk of chunks) {
          for (let at = 0; at < chunk.byteLength; ) {
            let n = Math.min(PIECE, chunk.byteLength - at);
            const allowed = cuttable ? o.drop.allowance(sent, n) : undefined;
            if (allowed !== undefined) n = allowed;
            if (n > 0 && !(await write(res, chunk.subarray(at, at + n)))) return;
            at += n;
            sent += n;
            if (allowed !== undefined) {
              // The window's cut: the connection closes with the body short of its Content-Length.
              o.drop.dropped(source);
              closeAfterFlush(res);
              return;
            }
          }
        }
        if (method !== "HEAD" && sent < announced) {
          closeAfterFlush(res);
          return;
        }
        res.end();
      } catch {
        res.destroy();
      }
    })();
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 30_000;
  return listenNode(server, o.listen);
}
