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
import { METAL_BOOT_USER_AGENT } from "./boot-event.ts";
import type { ServerCert } from "./pki.ts";
import type { RequestLog } from "./request-log.ts";
import { listenNode, type Listen } from "./node-listen.ts";
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
  const serving: ApiServing = { log, control, api, ...(balancer ? { balancer } : {}) };
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => void answer(serving, req, res));
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  server.setTimeout(0);
  return listenNode(server, listen);
}

/** What every request of the server is answered with: the log, the control endpoints, the apiserver, the balancer in front. */
interface ApiServing {
  readonly log: RequestLog;
  readonly control: Control;
  readonly api: Api;
  readonly balancer?: UnavailableWindow;
}

/** One request as read: its path (no query), whole body and headers. */
interface ReadRequest {
  readonly path: string;
  readonly body: Uint8Array;
  readonly headers: Record<string, string>;
}

/** One request: read whole, logged when its head is written, routed to the control endpoints, the balancer or the apiserver. */
async function answer(s: ApiServing, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const r: ReadRequest = { path: (req.url ?? "/").split("?")[0] ?? "/", body: await readBody(req), headers: headerObject(req) };
  // metal-boot's own boot events (boot-event.ts) are not a machine's requests: they show in the
  // machines' event containers, so they are neither logged nor seen by the balancer (whose
  // counts then match the log). Decided here, once.
  const fromMetalBoot = r.headers["user-agent"] === METAL_BOOT_USER_AGENT;
  if (!fromMetalBoot) logOnHead(s.log, req, res, r);
  try {
    if (r.path.startsWith("/_standin/")) return await answerControl(s.control, req, res, r);
    if (!fromMetalBoot && s.balancer?.take()) return answerBalancer(res);
    await s.api(req, res, r.body);
  } catch {
    res.destroy();
  }
}

/** Logs the answer when its head is written; not when the client has gone (a Wait that never answered ends so): nothing was answered. */
function logOnHead(log: RequestLog, req: IncomingMessage, res: ServerResponse, r: ReadRequest): void {
  const source = req.socket.remoteAddress ?? null;
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  let logged = false;
  (res as unknown as { writeHead: (...a: unknown[]) => ServerResponse }).writeHead = (...a: unknown[]) => {
    if (!logged && !req.socket.destroyed) {
      logged = true;
      log.add({
        time: new Date().toISOString(),
        server: "api",
        method: req.method ?? "",
        path: r.path,
        source,
        status: Number(a[0]),
        headers: r.headers,
        body: new TextDecoder().decode(r.body),
      });
    }
    return writeHead(...a);
  };
}

/** A /_standin/ request as a fetch Request to the control endpoints, told whether it came from this host; 404 for an unknown one. */
async function answerControl(control: Control, req: IncomingMessage, res: ServerResponse, r: ReadRequest): Promise<void> {
  const answer = await control(
    "api",
    r.path,
    new Request(`https://standin${req.url ?? "/"}`, { method: req.method ?? "GET", headers: r.headers, ...(req.method === "POST" ? { body: r.body } : {}) }),
    { local: isLocalPeer(req.socket.remoteAddress, req.socket.localAddress) },
  );
  await writeFetchResponse(answer ?? Response.json({ error: `no control endpoint ${r.path}` }, { status: 404 }), res);
}

/** The balancer's own answer: no Connect error body (the client maps the status). */
function answerBalancer(res: ServerResponse): void {
  res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(BALANCER_BODY)) });
  res.end(BALANCER_BODY);
}
