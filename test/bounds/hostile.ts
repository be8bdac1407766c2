/**
 * Hostile stand-ins on loopback ([::1], port 0) and a bounded runner for the agent
 * that measures its peak memory. A stand-in speaks raw TCP so it can send what no
 * HTTP library would: endless or trickling bodies, broken chunking, bad
 * Content-Length, a reset after the headers, huge Connect envelopes.
 */
import { createServer, type Server, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../..");

/** Peak RSS allowed for the agent under any hostile input (docs/bounds.md). */
export const PEAK_RSS_BOUND_KIB = 256 * 1024;

export interface Hostile {
  readonly port: number;
  readonly url: string;
  /** Requests seen (the request line of each). */
  readonly requests: string[];
  /** Body bytes sent so far. */
  sent(): number;
  /** Connections the peer has closed so far. */
  closed(): number;
  close(): Promise<void>;
}

export type Behaviour = (sock: Socket, request: string, ctx: { count(n: number): void }) => void | Promise<void>;

/** Writes `chunk` forever (with backpressure) until the peer goes away. */
export async function endless(sock: Socket, chunk: Buffer, count: (n: number) => void): Promise<void> {
  while (!sock.destroyed && sock.writable) {
    count(chunk.byteLength);
    if (!sock.write(chunk)) {
      const ok = await new Promise<boolean>((r) => {
        sock.once("drain", () => r(true));
        sock.once("close", () => r(false));
      });
      if (!ok) return;
    }
  }
}

/** One byte every `everyMs` until the peer goes away. */
export async function trickle(sock: Socket, everyMs: number, count: (n: number) => void): Promise<void> {
  while (!sock.destroyed && sock.writable) {
    sock.write("x");
    count(1);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A chunked-encoding chunk holding `data`. */
export const chunk = (data: Buffer | string): Buffer => {
  const b = Buffer.from(data);
  return Buffer.concat([Buffer.from(`${b.byteLength.toString(16)}\r\n`), b, Buffer.from("\r\n")]);
};

/** 64 KiB of body as one chunk (chunked encoding). */
export const BLOCK_64K = chunk(Buffer.alloc(64 << 10, 0x78));

/** A Connect streaming envelope. */
export function envelope(flags: number, data: Buffer | string, lengthOverride?: number): Buffer {
  const d = Buffer.from(data);
  const h = Buffer.alloc(5);
  h.writeUInt8(flags, 0);
  h.writeUInt32BE(lengthOverride ?? d.byteLength, 1);
  return Buffer.concat([h, d]);
}

export async function hostile(behaviour: Behaviour): Promise<Hostile> {
  const requests: string[] = [];
  let sent = 0;
  let closed = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on("error", () => {});
    sock.on("close", () => {
      sockets.delete(sock);
      closed++;
    });
    let buf = "";
    const onData = (d: Buffer) => {
      buf += d.toString("latin1");
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buf.slice(0, end);
      const cl = /content-length:\s*(\d+)/i.exec(head);
      const bodyLen = cl ? Number(cl[1]) : 0;
      if (buf.length < end + 4 + bodyLen) return;
      sock.off("data", onData);
      requests.push(head.split("\r\n")[0] ?? "");
      void behaviour(sock, buf, { count: (n) => void (sent += n) });
    };
    sock.on("data", onData);
  });
  await new Promise<void>((r) => server.listen(0, "::1", r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://[::1]:${port}`,
    requests,
    sent: () => sent,
    closed: () => closed,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /**
   * Peak RSS (VmHWM from /proc/PID/status, sampled every 10 ms; the last sample before
   * exit), KiB. Bun's resourceUsage().maxRSS is not used: after other children it
   * reported their larger peak (224 MiB for a case whose VmHWM was 72 MiB).
   */
  readonly vmHwmKiB: number;
  readonly ms: number;
}

function vmHwm(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `cmd` (bounded by `timeoutMs`, then SIGKILL), sampling its VmHWM every 10 ms. */
export async function runMeasured(
  cmd: readonly string[],
  opts: {
    timeoutMs?: number;
    env?: Record<string, string>;
    readErr?: (s: ReadableStream<Uint8Array>) => Promise<string>;
    readOut?: (s: ReadableStream<Uint8Array>) => Promise<string>;
  } = {},
): Promise<Run> {
  const t0 = performance.now();
  const proc = Bun.spawn([...cmd], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 60_000,
    killSignal: "SIGKILL",
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, vmHwm(proc.pid) ?? 0);
  }, 10);
  const text = (s: ReadableStream<Uint8Array>) => new Response(s).text();
  const [out, err, code] = await Promise.all([(opts.readOut ?? text)(proc.stdout), (opts.readErr ?? text)(proc.stderr), proc.exited]);
  clearInterval(sampler);
  return { code, out, err, vmHwmKiB: peak, ms: Math.round(performance.now() - t0) };
}

/** The agent from source. */
export const AGENT = [process.execPath, join(REPO, "src/main.ts")];

/** The last line of stderr (the final error line). */
export const lastLine = (s: string): string => s.trimEnd().split("\n").at(-1) ?? "";
