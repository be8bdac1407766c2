/**
 * Loki stand-in for tests and the lab: `POST /loki/api/v1/push` with the JSON body of
 * Loki's push API (`{"streams":[{"stream":{<label>:<value>},"values":[["<unix ns>",
 * "<line>"],...]}]}`), checked strictly: label names as Prometheus label names, the
 * timestamp a decimal string of nanoseconds, every value a [string, string] pair, and
 * within one stream no entry older than the last one accepted ("entry out of order",
 * as Loki without out-of-order ingestion answers). Accepted pushes answer 204, a bad
 * body 400 naming what is wrong. Optional basic auth (401 without it). Faults: `down`
 * (503 for every push) and `slowMs`. `GET /ready` answers "ready"; `GET /lines` lists
 * what arrived (lab debugging). Run alone: `bun lab/standins/loki.ts --port 3100`.
 */
import { z } from "zod";

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const PushSchema = z.object({
  streams: z
    .array(
      z.object({
        stream: z.record(z.string().regex(LABEL_NAME, "label names must match [a-zA-Z_][a-zA-Z0-9_]*"), z.string()),
        values: z.array(z.tuple([z.string().regex(/^\d{1,19}$/, "timestamps are unix nanoseconds as a decimal string"), z.string()])).min(1, "a stream needs at least one value"),
      }),
    )
    .min(1, "at least one stream"),
});

export interface LokiLine {
  readonly labels: Readonly<Record<string, string>>;
  readonly ns: bigint;
  readonly line: string;
}

export interface LokiStandinOptions {
  readonly basicAuth?: { readonly user: string; readonly password: string };
}

export interface LokiState {
  readonly lines: LokiLine[];
  /** Pushes answered, by status. */
  readonly pushes: { status: number; error?: string }[];
  /** Every Authorization header seen (to prove what was sent). */
  readonly authorizations: string[];
  readonly faults: { down: boolean; slowMs: number };
}

export function lokiHandler(opts: LokiStandinOptions = {}) {
  const state: LokiState = { lines: [], pushes: [], authorizations: [], faults: { down: false, slowMs: 0 } };
  const lastNs = new Map<string, bigint>();
  const answer = (status: number, error?: string): Response => {
    state.pushes.push(error === undefined ? { status } : { status, error });
    return new Response(error ? `${error}\n` : null, { status });
  };
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname === "/ready") return new Response("ready\n");
    if (req.method === "GET" && url.pathname === "/lines") return Response.json(state.lines.map((l) => ({ ...l, ns: l.ns.toString() })));
    if (url.pathname !== "/loki/api/v1/push") return new Response("404 page not found\n", { status: 404 });
    if (req.method !== "POST") return new Response("method not allowed\n", { status: 405 });
    const auth = req.headers.get("authorization");
    if (auth) state.authorizations.push(auth);
    if (opts.basicAuth) {
      const want = `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString("base64")}`;
      if (auth !== want) return answer(401, "unauthorized");
    }
    if (state.faults.slowMs) await Bun.sleep(state.faults.slowMs);
    if (state.faults.down) return answer(503, "stand-in down");
    if (!(req.headers.get("content-type") ?? "").startsWith("application/json")) return answer(415, "expected Content-Type application/json");
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return answer(400, "body is not JSON");
    }
    const p = PushSchema.safeParse(body);
    if (!p.success) {
      const i = p.error.issues[0]!;
      return answer(400, `${i.path.join(".")}: ${i.message}`);
    }
    const incoming: LokiLine[] = [];
    for (const s of p.data.streams) {
      const key = JSON.stringify(Object.entries(s.stream).sort());
      let last = lastNs.get(key) ?? 0n;
      for (const [ts, line] of s.values) {
        const ns = BigInt(ts);
        if (ns < last) return answer(400, `entry out of order for stream ${key}: ${ts} < ${last}`);
        last = ns;
        incoming.push({ labels: s.stream, ns, line });
      }
      lastNs.set(key, last);
    }
    state.lines.push(...incoming);
    return answer(204);
  };
  return { handler, state };
}

export interface LokiStandin {
  readonly url: URL;
  readonly pushUrl: URL;
  readonly state: LokiState;
  stop(): void;
}

/** TLS for the stand-in; with `clientCa` a client certificate signed by it is required (mTLS, pixie's certificate_auth). */
export interface LokiTls {
  readonly cert: string;
  readonly key: string;
  readonly clientCa?: string;
}

export function startLoki(hostname = "::1", port = 0, opts: LokiStandinOptions = {}, tls?: LokiTls): LokiStandin {
  const { handler, state } = lokiHandler(opts);
  const server = Bun.serve({
    hostname,
    port,
    fetch: handler,
    ...(tls ? { tls: { cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}) } } : {}),
  });
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = new URL(`${tls ? "https" : "http"}://${host}:${server.port}/`);
  return { url, pushUrl: new URL("/loki/api/v1/push", url), state, stop: () => server.stop(true) };
}

if (import.meta.main) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const s = startLoki(arg("listen") ?? "::", Number(arg("port") ?? "3100"));
  console.log(`loki stand-in on ${s.pushUrl.href}`);
}
