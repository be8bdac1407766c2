/**
 * Starts the three stand-ins (metal-boot, apiserver, image cache) as real HTTPS
 * servers. PKI: the "boot" CA signs metal-boot and the image cache (the machine gets
 * it via METAL_CA); the "api" CA signs the apiserver and is handed out by metal-boot,
 * so the apiserver is only trusted through the CA metal-boot gives. Each server also
 * answers /_standin/fault (POST a Fault as JSON; {} clears) and /_standin/calls; the
 * apiserver also POST /_standin/allocate ({uuid, allocation}), /_standin/wait-break
 * (cut the open Wait streams) and /_standin/keepalive ({ms}), GET /_standin/machines.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { apiserverHandler, type ApiCall } from "./apiserver.ts";
import { FaultBox, type Fault } from "./faults.ts";
import { MachineBook } from "./machines.ts";
import { IMAGE_PATH, imageCacheHandler, makeImage } from "./image-cache.ts";
import { metalBootHandler, type Machine, type MetalBootOptions } from "./metal-boot.ts";
import { makeCa, makeServerCert, type Ca } from "./pki.ts";
import { RequestLog } from "./request-log.ts";
import { TokenIssuer } from "./tokens.ts";

export type Role = "boot" | "api" | "images";
export const ROLES: readonly Role[] = ["boot", "api", "images"];

export interface Listen {
  readonly host: string;
  readonly port: number;
}

export interface StandinOptions {
  readonly stateDir: string;
  readonly listen: Readonly<Record<Role, Listen>>;
  /** Extra DNS names in every certificate (and used in URLs when `advertiseName` is set). */
  readonly names?: readonly string[];
  /** Put this host name in the URLs metal-boot hands out instead of the IP literal. */
  readonly advertiseName?: string;
  readonly machines: readonly Machine[];
  readonly logFile?: string;
  /** metal-boot's ntp_servers (default: none). */
  readonly ntpServers?: readonly string[];
  /** The image the cache serves (default: random bytes, enough for probes and fault tests). */
  readonly image?: Uint8Array;
}

export interface Standins {
  readonly urls: Readonly<Record<Role, string>>;
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
  stop(): Promise<void>;
}

const hostInUrl = (h: string) => (h.includes(":") ? `[${h}]` : h);

export async function startStandins(o: StandinOptions): Promise<Standins> {
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
  const log = new RequestLog(o.logFile);
  const tokens = new TokenIssuer();
  const calls: ApiCall[] = [];
  const book = new MachineBook();
  const image = o.image ?? makeImage();
  const machines = new Map(o.machines.map((m) => [m.uuid, m]));

  // Ports may be 0 (pick one): start the servers first, then tell metal-boot the URLs.
  const metalBoot: MetalBootOptions = { machines, defaultPartition: o.machines[0]?.partition ?? "lab", tokens, apiserverUrl: "", imageCacheUrl: undefined, ca: apiCa.pem, ntpServers: o.ntpServers ?? [], faults: faults.boot };
  const handlers: Record<Role, (r: Request) => Promise<Response>> = {
    boot: metalBootHandler(metalBoot),
    api: apiserverHandler({ tokens, faults: faults.api, calls, machines: book }),
    images: imageCacheHandler({ faults: faults.images, image }),
  };
  const servers = ROLES.map((role) =>
    Bun.serve({
      hostname: o.listen[role].host,
      port: o.listen[role].port,
      tls: certs[role],
      idleTimeout: 30,
      async fetch(req, server) {
        const path = new URL(req.url).pathname;
        let res: Response;
        const body = req.method === "POST" ? await req.clone().text() : "";
        // A Wait stream may stay open for hours (the lab): no idle timeout for it.
        if (path.endsWith("/Wait")) server.timeout(req, 0);
        if (path === "/_standin/fault" && req.method === "POST") {
          faults[role].set((await req.json()) as Fault);
          res = Response.json({ ok: true });
        } else if (role === "api" && path.startsWith("/_standin/") && path !== "/_standin/calls") {
          res = await apiControl(book, path, req);
        } else if (path === "/_standin/calls") {
          res = Response.json({ calls, requests: log.entries.map(({ headers: _h, body: _b, ...e }) => e) });
        } else {
          res = await handlers[role](req);
        }
        log.add({ time: new Date().toISOString(), server: role, method: req.method, path, source: server.requestIP(req)?.address ?? null, status: res.status, headers: Object.fromEntries(req.headers), body });
        return res;
      },
    }),
  );
  const urls = Object.fromEntries(
    ROLES.map((role, i) => [role, `https://${o.advertiseName ?? hostInUrl(o.listen[role].host)}:${servers[i]?.port}`]),
  ) as Record<Role, string>;
  metalBoot.apiserverUrl = urls.api;
  metalBoot.imageCacheUrl = `${urls.images}/`;
  return {
    urls,
    bootCa,
    apiCa,
    faults,
    calls,
    machines: book,
    log,
    tokens,
    image,
    imagePath: IMAGE_PATH,
    metalBoot,
    async stop() {
      await Promise.all(servers.map((s) => s.stop(true)));
    },
  };
}

/** The apiserver's control endpoints (the lab and tests set allocations and cut streams). */
async function apiControl(book: MachineBook, path: string, req: Request): Promise<Response> {
  if (path === "/_standin/machines" && req.method === "GET") {
    return Response.json({ registered: Object.fromEntries(book.registered), allocations: Object.fromEntries(book.allocations), openWaits: [...book.open].map((w) => w.uuid) });
  }
  if (req.method !== "POST") return Response.json({ error: "POST expected" }, { status: 405 });
  const v = (await req.json().catch(() => ({}))) as Record<string, unknown>;
  if (path === "/_standin/allocate") {
    if (typeof v.uuid !== "string" || !v.allocation || typeof v.allocation !== "object") return Response.json({ error: "expected {uuid, allocation}" }, { status: 400 });
    book.allocate(v.uuid, v.allocation as Record<string, unknown>);
    return Response.json({ ok: true });
  }
  if (path === "/_standin/wait-break") return Response.json({ ok: true, cut: book.breakWaits() });
  if (path === "/_standin/keepalive") {
    book.keepaliveMs = Number(v.ms) || 0;
    return Response.json({ ok: true, keepaliveMs: book.keepaliveMs });
  }
  return Response.json({ error: `no control endpoint ${path}` }, { status: 404 });
}
