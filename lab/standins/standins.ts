/**
 * Starts the three stand-ins (metal-boot, apiserver, image cache) as real HTTPS
 * servers: metal-boot on Bun.serve, the apiserver (connect-es, apiserver.ts) on
 * node:https for connect-node (api-server.ts), the image cache on node:https so that a
 * cut is a real short body (image-server.ts). PKI: the "boot" CA signs metal-boot and the image cache (the machine gets
 * it via METAL_CA); the "api" CA signs the apiserver and is handed out by metal-boot,
 * so the apiserver is only trusted through the CA metal-boot gives. Each server also
 * answers /_standin/fault (POST a Fault as JSON; {} clears) and /_standin/calls; the
 * apiserver also POST /_standin/allocate ({uuid, allocation}; 409 when the machine is not Alive,
 * machines.ts allocateWaiting), /_standin/wait-break
 * (cut the open Wait streams), /_standin/outage ({ms}: every server closes its listeners
 * and connections, then listens again on the same ports, state kept), /_standin/unavailable
 * (POST {every, ms}: a balancer in front answers every every-th request 503 for ms; GET: the
 * counts; only from this host itself, unavailable.ts), /_standin/image-drop (POST {afterBytes, ms,
 * delayMs, holdFor}: the image cache closes every image connection after afterBytes of its body for
 * ms from delayMs on, counted from the holdFor-th image GET when given; GET: its counts by client
 * address; only from this host itself, image-drop.ts), /_standin/image-trickle (POST {}: the
 * next image GET trickles again, as the first did with --image-trickle),
 * /_standin/keepalive ({ms}) and /_standin/switches
 * ({switches: [{id, os, ports}], cumulusIdentifier}: the switch table), GET
 * /_standin/machines (with each machine's switch connections) and /_standin/switches.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { apiserverListener, type ApiCall } from "./apiserver-rpc.ts";
import { isLocalPeer, serveApi, type Peer } from "./api-server.ts";
import { requestValidator } from "./validation.ts";
import { FaultBox, sleep, type Fault } from "./faults.ts";
import { MachineBook } from "./machines.ts";
import { IMAGE_PATH, imageCacheHandler, makeImage, type ImageTrickle } from "./image-cache.ts";
import { ImageDropWindow, parseImageDropSpec } from "./image-drop.ts";
import { serveImages } from "./image-server.ts";
import type { Listen } from "./node-listen.ts";
import { metalBootHandler, type Machine, type MetalBootOptions } from "./metal-boot.ts";
import { makeCa, makeServerCert, type Ca } from "./pki.ts";
import { RequestLog } from "./request-log.ts";
import { parseSwitchSpecs, switchTableJson } from "./switches.ts";
import { TokenIssuer } from "./tokens.ts";
import { parseUnavailableSpec, UnavailableWindow } from "./unavailable.ts";

export type Role = "boot" | "api" | "images";
export const ROLES: readonly Role[] = ["boot", "api", "images"];

export interface StandinOptions {
  readonly stateDir: string;
  readonly listen: Readonly<Record<Role, Listen>>;
  /** Extra DNS names in every certificate (and used in URLs when `advertiseName` is set). */
  readonly names?: readonly string[];
  /** Put this host name in the URLs metal-boot hands out instead of the IP literal. */
  readonly advertiseName?: string;
  /** Per server, the host name in its URL (over `advertiseName`): the apiserver and the image cache by names of their own. */
  readonly advertiseNames?: Partial<Record<Role, string>>;
  readonly machines: readonly Machine[];
  readonly logFile?: string;
  /** metal-boot's ntp_servers (default: none). */
  readonly ntpServers?: readonly string[];
  /** The image the cache serves (default: random bytes, enough for probes and fault tests). */
  readonly image?: Uint8Array;
  /** The first GET of the image trickles after this many bytes and never ends (image-cache.ts trickle). */
  readonly imageTrickleBytes?: number;
}

export interface Standins {
  readonly urls: Readonly<Record<Role, string>>;
  /** The same URLs by IP literal (for the lab's own control requests, which resolve no names). */
  readonly literalUrls: Readonly<Record<Role, string>>;
  readonly bootCa: Ca;
  readonly apiCa: Ca;
  readonly faults: Readonly<Record<Role, FaultBox>>;
  readonly calls: ApiCall[];
  /** The apiserver's machines: registrations, allocations, open Wait streams. */
  readonly machines: MachineBook;
  readonly log: RequestLog;
  readonly tokens: TokenIssuer;
  readonly image: Uint8Array;
  readonly imagePath: string;
  readonly metalBoot: MetalBootOptions;
  /** The balancer in front of the apiserver (POST /_standin/unavailable). */
  readonly unavailable: UnavailableWindow;
  /** The image cache's drop window (POST /_standin/image-drop). */
  readonly imageDrop: ImageDropWindow;
  stop(): Promise<void>;
}

const hostInUrl = (h: string) => (h.includes(":") ? `[${h}]` : h);

interface Server {
  readonly port: number;
  stop(): Promise<void>;
}

/** What the three servers share: options, PKI, the books, the handlers, the control windows, the listening servers. */
interface StandinState {
  readonly o: StandinOptions;
  readonly bootCa: Ca;
  readonly apiCa: Ca;
  readonly certs: Readonly<Record<Role, { readonly cert: string; readonly key: string }>>;
  readonly faults: Readonly<Record<Role, FaultBox>>;
  readonly log: RequestLog;
  readonly tokens: TokenIssuer;
  readonly calls: ApiCall[];
  readonly book: MachineBook;
  readonly image: Uint8Array;
  readonly metalBoot: MetalBootOptions;
  readonly handlers: Readonly<Record<Exclude<Role, "api">, (r: Request) => Promise<Response>>>;
  readonly api: ReturnType<typeof apiserverListener>;
  readonly unavailable: UnavailableWindow;
  readonly imageDrop: ImageDropWindow;
  /** The image's trickle fault (--image-trickle), re-armed by POST /_standin/image-trickle. */
  readonly imageTrickle: ImageTrickle | undefined;
  /** The listening servers in ROLES order (replaced after an outage). */
  readonly servers: Server[];
}

export async function startStandins(o: StandinOptions): Promise<Standins> {
  const st = prepare(o);
  st.servers.push(...(await Promise.all(ROLES.map((role) => serve(st, role, o.listen[role].port)))));
  // Ports may be 0 (picked): metal-boot learns the URLs once the servers listen.
  const urls = Object.fromEntries(
    ROLES.map((role, i) => [role, `https://${o.advertiseNames?.[role] ?? o.advertiseName ?? hostInUrl(o.listen[role].host)}:${st.servers[i]?.port}`]),
  ) as Record<Role, string>;
  const literalUrls = Object.fromEntries(ROLES.map((role, i) => [role, `https://${hostInUrl(o.listen[role].host)}:${st.servers[i]?.port}`])) as Record<Role, string>;
  st.metalBoot.apiserverUrl = urls.api;
  // metal-boot reaches the apiserver by its address (its own client, not the URL machines get, which tests change).
  st.metalBoot.eventApiUrl = `https://${hostInUrl(o.listen.api.host)}:${st.servers[ROLES.indexOf("api")]?.port}`;
  st.metalBoot.imageCacheUrl = `${urls.images}/`;
  return {
    urls,
    literalUrls,
    bootCa: st.bootCa,
    apiCa: st.apiCa,
    faults: st.faults,
    calls: st.calls,
    machines: st.book,
    log: st.log,
    tokens: st.tokens,
    image: st.image,
    imagePath: IMAGE_PATH,
    metalBoot: st.metalBoot,
    unavailable: st.unavailable,
    imageDrop: st.imageDrop,
    async stop() {
      await Promise.all(st.servers.map((s) => s.stop()));
    },
  };
}

/** The state dir, the PKI (certificates for every listen host and name), the books and the handlers; nothing listens yet. */
function prepare(o: StandinOptions): StandinState {
  mkdirSync(o.stateDir, { recursive: true });
  const pkiDir = join(o.stateDir, "pki");
  const bootCa = makeCa(pkiDir, "boot-ca");
  const apiCa = makeCa(pkiDir, "api-ca");
  const names = o.names ?? [];
  const certs = {
    boot: makeServerCert(bootCa, "metal-boot", [o.listen.boot.host], names),
    api: makeServerCert(apiCa, "apiserver", [o.listen.api.host], names),
    images: makeServerCert(bootCa, "image-cache", [o.listen.images.host], names),
  };
  const faults = { boot: new FaultBox(), api: new FaultBox(), images: new FaultBox() };
  const tokens = new TokenIssuer();
  const calls: ApiCall[] = [];
  const book = new MachineBook();
  const image = o.image ?? makeImage();
  const metalBoot: MetalBootOptions = {
    machines: new Map(o.machines.map((m) => [m.uuid, m])),
    defaultPartition: o.machines[0]?.partition ?? "lab",
    tokens,
    apiserverUrl: "",
    imageCacheUrl: undefined,
    ca: apiCa.pem,
    ntpServers: o.ntpServers ?? [],
    faults: faults.boot,
    eventApiUrl: "",
    eventApiCa: apiCa.pem,
    bootEvents: true,
    sentEvents: [],
  };
  const imageTrickle: ImageTrickle | undefined = o.imageTrickleBytes !== undefined ? { afterBytes: o.imageTrickleBytes, times: 1 } : undefined;
  return {
    o,
    bootCa,
    apiCa,
    certs,
    faults,
    log: new RequestLog(o.logFile),
    tokens,
    calls,
    book,
    image,
    metalBoot,
    handlers: {
      boot: metalBootHandler(metalBoot),
      images: imageCacheHandler({ faults: faults.images, image, ...(imageTrickle ? { trickle: imageTrickle } : {}) }),
    },
    api: apiserverListener({ tokens, faults: faults.api, calls, machines: book, validator: requestValidator() }),
    unavailable: new UnavailableWindow(),
    imageDrop: new ImageDropWindow(),
    imageTrickle,
    servers: [],
  };
}

/** A control window's endpoint (GET its counts, POST a spec). */
async function windowEndpoint<Spec>(
  path: string,
  req: Request,
  window: { report(): unknown; set(spec: Spec): unknown },
  parse: (v: unknown) => Spec | { readonly error: string },
): Promise<Response> {
  if (req.method === "GET") return Response.json(window.report());
  if (req.method !== "POST") return Response.json({ error: `${path}: GET or POST expected` }, { status: 405 });
  const spec = parse(await req.json().catch(() => undefined));
  if (typeof spec === "object" && spec !== null && "error" in spec) return Response.json({ error: `${path}: ${spec.error}` }, { status: 400 });
  return Response.json(window.set(spec as Spec));
}

/**
 * The /_standin/ endpoints every server answers (and the apiserver's own); undefined: not a
 * control request. Only from this host itself: a machine must not be able to fault, outage
 * or allocate (the real servers have no such door at all).
 */
async function control(st: StandinState, role: Role, path: string, req: Request, peer: Peer): Promise<Response | undefined> {
  if (!path.startsWith("/_standin/")) return undefined;
  if (!peer.local) return Response.json({ error: `${path}: only from this host itself (loopback or the server's own address)` }, { status: 403 });
  if (role === "api" && path === "/_standin/unavailable") return windowEndpoint(path, req, st.unavailable, parseUnavailableSpec);
  if (role === "api" && path === "/_standin/image-drop") return windowEndpoint(path, req, st.imageDrop, parseImageDropSpec);
  if (role === "api" && path === "/_standin/image-trickle" && req.method === "POST") {
    if (!st.imageTrickle) return Response.json({ error: `${path}: no trickle fault (start with --image-trickle BYTES)` }, { status: 400 });
    st.imageTrickle.times = 1;
    return Response.json({ ok: true, afterBytes: st.imageTrickle.afterBytes });
  }
  if (path === "/_standin/outage" && req.method === "POST") {
    const ms = Number(((await req.json().catch(() => ({}))) as { ms?: unknown }).ms);
    if (!Number.isInteger(ms) || ms < 0 || ms > 600_000) return Response.json({ error: "expected {ms}: 0..600000" }, { status: 400 });
    // Answered first; the servers go down right after this answer is written.
    setTimeout(() => void outage(st, ms), 50);
    return Response.json({ ok: true, ms });
  }
  if (path === "/_standin/fault" && req.method === "POST") {
    st.faults[role].set((await req.json()) as Fault);
    return Response.json({ ok: true });
  }
  if (path === "/_standin/calls") return Response.json({ calls: st.calls, requests: st.log.entries.map(({ headers: _h, body: _b, ...e }) => e) });
  if (role === "api" && path.startsWith("/_standin/")) return apiControl(st.book, path, req);
  return undefined;
}

/** One server listening on `port` (0: any): the apiserver on node:https, the image cache on node:https, metal-boot on Bun.serve. */
async function serve(st: StandinState, role: Role, port: number): Promise<Server> {
  const { o, certs, log } = st;
  const ctl = (r: Role, path: string, req: Request, peer: Peer) => control(st, r, path, req, peer);
  if (role === "api") return serveApi({ ...o.listen.api, port }, certs.api, log, ctl, st.api, st.unavailable);
  if (role === "images")
    return serveImages({ listen: { ...o.listen.images, port }, cert: certs.images, log, control: ctl, handler: st.handlers.images, imagePath: IMAGE_PATH, drop: st.imageDrop });
  const s = Bun.serve({
    hostname: o.listen[role].host,
    port,
    tls: certs[role],
    idleTimeout: 30,
    async fetch(req, server) {
      const path = new URL(req.url).pathname;
      const body = req.method === "POST" ? await req.clone().text() : "";
      const peer = { local: isLocalPeer(server.requestIP(req)?.address, o.listen[role].host) };
      const res = (await control(st, role, path, req, peer)) ?? (await st.handlers[role](req));
      log.add({
        time: new Date().toISOString(),
        server: role,
        method: req.method,
        path,
        source: server.requestIP(req)?.address ?? null,
        status: res.status,
        headers: Object.fromEntries(req.headers),
        body,
      });
      return res;
    },
  });
  return { port: s.port ?? 0, stop: () => s.stop(true) };
}

/**
 * A restart of the servers with their state kept (as the real ones keep theirs in a
 * database): every listener and connection closes now (clients are refused), the same
 * ports listen again after `ms`. POST /_standin/outage {ms} on any server.
 */
async function outage(st: StandinState, ms: number): Promise<void> {
  st.book.breakWaits();
  await Promise.all(st.servers.map((x) => x.stop()));
  await sleep(ms);
  for (const [i, role] of ROLES.entries()) st.servers[i] = await serve(st, role, st.servers[i]?.port ?? 0);
}

/** The apiserver's control endpoints (the lab and tests set allocations and cut streams). */
async function apiControl(book: MachineBook, path: string, req: Request): Promise<Response> {
  if (path === "/_standin/machines" && req.method === "GET") {
    return Response.json({
      registered: Object.fromEntries(book.registered),
      allocations: Object.fromEntries(book.allocations),
      openWaits: [...book.open].map((w) => w.uuid),
      waitOpenedAt: book.waitOpenedAt,
      connections: Object.fromEntries([...book.registered.keys()].map((u) => [u, book.connections(u)])),
      events: Object.fromEntries(book.events),
      allocationTries: book.allocationTries,
    });
  }
  if (path === "/_standin/switches" && req.method === "GET") return Response.json({ switches: switchTableJson(book.switches) });
  if (req.method !== "POST") return Response.json({ error: "POST expected" }, { status: 405 });
  const v = (await req.json().catch(() => ({}))) as Record<string, unknown>;
  if (path === "/_standin/allocate") {
    if (typeof v.uuid !== "string" || !v.allocation || typeof v.allocation !== "object") return Response.json({ error: "expected {uuid, allocation}" }, { status: 400 });
    // The operator's allocation: refused as findWaitingMachine skips a machine that is not Alive (liveliness.ts).
    const refused = book.allocateWaiting(v.uuid, v.allocation as Record<string, unknown>);
    return refused ? Response.json({ error: refused }, { status: 409 }) : Response.json({ ok: true });
  }
  if (path === "/_standin/switches") {
    try {
      book.switches = parseSwitchSpecs(v.switches, v.cumulusIdentifier === "none" ? "none" : "mac");
    } catch (e) {
      return Response.json({ error: (e as Error).message }, { status: 400 });
    }
    return Response.json({ ok: true, switches: switchTableJson(book.switches) });
  }
  if (path === "/_standin/wait-break") return Response.json({ ok: true, cut: book.breakWaits() });
  if (path === "/_standin/keepalive") {
    book.keepaliveMs = Number(v.ms) || 0;
    return Response.json({ ok: true, keepaliveMs: book.keepaliveMs });
  }
  return Response.json({ error: `no control endpoint ${path}` }, { status: 404 });
}
