/**
 * The apiserver stand-in's HTTPS server: node:https (Bun implements it; connect-node's
 * request and response types are node's), HTTP/1.1 as the agent speaks it. Reads each request
 * body whole (the agent's requests are one message each), logs every answer when its head is
 * written (a Wait's only with its first message), routes /_standin/* to the control endpoints
 * and the rest to the connect-es apiserver (apiserver.ts). No idle timeout: a Wait may stay
 * open for hours in the lab. In front of the apiserver sits the balancer fault
 * (unavailable.ts): while its window is open, every n-th request is answered 503 here and
 * never reaches the apiserver. The control endpoints learn whether the request came from
 * this host itself (its source is loopback or the address it reached).
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerCert } from "./pki.ts";
import type { RequestLog } from "./request-log.ts";
import type { Listen } from "./standins.ts";
import { listenNode } from "./node-listen.ts";
import { BALANCER_BODY, type UnavailableWindow } from "./unavailable.ts";

/** Where a control request came from: `local` when from this host itself (loopback, or the server's own address). */
export interface Peer {
  readonly local: boolean;
}
type Control = (role: "api", path: string, req: Request, peer: Peer) => Promise<Response | undefined>;
type Api = (req: IncomingMessage, res: ServerResponse, body: Uint8Array) => Promise<void>;

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** A fetch Response written to a node response. */
async function writeFetchResponse(r: Response, res: ServerResponse): Promise<void> {
  res.writeHead(r.status, Object.fromEntries(r.headers));
  res.end(new Uint8Array(await r.arrayBuffer()));
}

const headerObject = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));

const LOOPBACK = /^(::1|127\.\d+\.\d+\.\d+|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Whether a connection comes from this host: a loopback source, or its source is the address it reached. */
export function isLocalPeer(remote: string | undefined, local: string | undefined): boolean {
  if (!remote) return false;
  return LOOPBACK.test(remote) || remote === local;
}

export async function serveApi(
  listen: Listen,
  cert: ServerCert,
  log: RequestLog,
  control: Control,
  api: Api,
  balancer?: UnavailableWindow,
): Promise<{ port: number; stop(): Promise<void> }> {
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const body = await readBody(req);
      const headers = headerObject(req);
      const source = req.socket.remoteAddress ?? null;
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
      let logged = false;
      (res as unknown as { writeHead: (...a: unknown[]) => ServerResponse }).writeHead = (...a: unknown[]) => {
        // Not when the client has gone (a Wait that never answered ends so): nothing was answered.
        if (!logged && !req.socket.destroyed) {
          logged = true;
          log.add({ time: new Date().toISOString(), server: "api", method: req.method ?? "", path, source, status: Number(a[0]), headers, body: new TextDecoder().decode(body) });
        }
        return writeHead(...a);
      };
      try {
        if (path.startsWith("/_standin/")) {
          const r = await control(
            "api",
            path,
            new Request(`https://standin${req.url ?? "/"}`, { method: req.method ?? "GET", headers, ...(req.method === "POST" ? { body } : {}) }),
            { local: isLocalPeer(req.socket.remoteAddress, req.socket.localAddress) },
          );
          await writeFetchResponse(r ?? Response.json({ error: `no control endpoint ${path}` }, { status: 404 }), res);
          return;
        }
        if (balancer?.take()) {
          // The balancer's own answer: no Connect error body (the client maps the status).
          res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(BALANCER_BODY)) });
          res.end(BALANCER_BODY);
          return;
        }
        await api(req, res, body);
      } catch {
        res.destroy();
      }
    })();
  });
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  server.setTimeout(0);
  return listenNode(server, listen);
}
