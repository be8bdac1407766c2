/**
 * Fuzzing with a fixed seed and a bounded count (a few seconds, in CI): the kernel
 * cmdline, and every parser of a server answer (metal-boot's config, each Connect
 * method's answer, Connect error bodies, streaming envelopes, image checksum sidecars, the
 * image's LZ4 frames, decoded in the agent's own process through liblz4) fed through the agent's
 * own entry points. Every outcome must be a success or the documented code for bad
 * input (2 for the cmdline, 24 for an answer): never an internal error (1), never a
 * bare exception. A failing case prints its seed and index to replay it.
 */
import { describe, expect, test } from "bun:test";
import { ConnectClient } from "../../src/clients/api/connect-client.ts";
import { parseConnectError } from "../../src/clients/api/connect-error.ts";
import { decoder, procedureOf } from "../../src/clients/api/rpc.ts";
import { HealthService } from "../../src/gen/metalstack/api/v2/health_pb.ts";
import { VersionService } from "../../src/gen/metalstack/api/v2/version_pb.ts";
import { BootService } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { EventService } from "../../src/gen/metalstack/infra/v2/event_pb.ts";
import { fetchBootConfig } from "../../src/clients/metal-boot/metal-boot-client.ts";
import { parseChecksumFile } from "../../src/clients/image-cache/checksum.ts";
import { Lz4Error, lz4Decoder } from "../../src/install/lz4-frame.ts";
import { spawnSync } from "node:child_process";
import { runCli } from "../../src/cli/program.ts";
import { AgentError, toAgentError } from "../../src/platform/errors.ts";
import type { HttpClient, HttpResponse, HttpStream } from "../../src/clients/http/http-client.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { captureContext } from "../helpers/capture.ts";
import { envelope } from "./hostile.ts";
import { int, pick, rng, tally, type R } from "./seeded.ts";

const SEED = 0x6d6574; // "met"
const COUNT = Number(process.env.FUZZ_COUNT ?? 3000);

const TOKENS = [
  '"',
  "=",
  " ",
  "--",
  "\\",
  "\0",
  "\n",
  "\t",
  "\x1b[31m",
  "\u202e",
  "ü",
  "😀",
  "\uD800",
  "[",
  "]",
  "{",
  "}",
  ":",
  ",",
  "::",
  "[::]",
  "[ff02::1]",
  ":0",
  "%",
  "%00",
  "https://",
  "http://",
  "null",
  "true",
  "1e309",
  "-1",
  "9".repeat(40),
  "a".repeat(300),
  "METAL_",
  '="',
  '"=',
  "ip=",
  "\u0085",
];

/** Byte-level and token-level mutations of a text. */
function mutate(r: R, s: string): string {
  let out = s;
  for (let k = 1 + int(r, 6); k > 0; k--) {
    const at = int(r, out.length + 1);
    switch (int(r, 6)) {
      case 0:
        out = out.slice(0, at) + pick(r, TOKENS) + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(at + 1 + int(r, 8));
        break;
      case 2:
        out = out.slice(0, at) + String.fromCharCode(int(r, 0x110)) + out.slice(at + 1);
        break;
      case 3:
        out = out.slice(0, at);
        break;
      case 4: {
        const from = int(r, out.length + 1);
        out = out.slice(0, at) + out.slice(from, from + int(r, 40)) + out.slice(at);
        break;
      }
      default:
        out = out + " " + pick(r, TOKENS) + pick(r, TOKENS);
    }
  }
  return out;
}

/** Structural mutations of a JSON value: wrong types, dropped and unknown fields, deep nesting. */
function mutateJson(r: R, v: unknown, depth = 0): unknown {
  const odd = (): unknown => pick(r, [null, true, 0, -1, 1.5, 2 ** 64, "", "x", "\x1b[2J", [], {}, [[[[]]]], { a: { b: { c: {} } } }, "9".repeat(30)]);
  if (r() < 0.15 || depth > 6) return odd();
  if (Array.isArray(v)) return r() < 0.2 ? [...v, odd()] : v.map((x) => mutateJson(r, x, depth + 1));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (r() < 0.1) continue;
      out[r() < 0.05 ? mutate(r, k) : k] = r() < 0.4 ? mutateJson(r, x, depth + 1) : x;
    }
    if (r() < 0.2) out[pick(r, ["unknown", "__proto__", "constructor", "allocation", "token"])] = odd();
    return out;
  }
  if (typeof v === "string") return r() < 0.5 ? mutate(r, v) : odd();
  return odd();
}

/** An answer body: structured mutation, then sometimes byte damage. */
function answerBody(r: R, sample: unknown): Uint8Array {
  let text = JSON.stringify(r() < 0.9 ? mutateJson(r, sample) : sample) ?? "null";
  if (r() < 0.3) text = mutate(r, text);
  if (r() < 0.03) text = "[".repeat(20_000) + "]".repeat(20_000);
  return new TextEncoder().encode(text);
}

/** The outcome code of a call: "ok" or the AgentError code; anything else thrown fails the test. */
async function outcome(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return "ok";
  } catch (e) {
    if (!(e instanceof AgentError)) return `not an AgentError: ${String(e)}`;
    return e.code;
  }
}

/** A stand-in for HttpClient that answers every request with the given answer (types as the ConnectClient and metal-boot client use them). */
function fakeHttp(answer: { status: number; body: Uint8Array; chunks?: Uint8Array[] }): HttpClient {
  const res: HttpResponse = { status: answer.status, headers: {}, body: answer.body, latencyMs: 1, attempts: 1, address: "::1" };
  const stream: HttpStream = {
    status: answer.status,
    headers: {},
    address: "::1",
    latencyMs: 1,
    body: (async function* () {
      for (const c of answer.chunks ?? [answer.body]) yield c;
    })(),
    errorBody: async () => answer.body,
  };
  return { request: async () => res, stream: async () => stream, bodyError: (e: unknown) => toAgentError(e) } as unknown as HttpClient;
}

const GOOD_CMDLINE =
  "console=ttyS0 METAL_BOOT_URL=https://[fd00::1]:8443/ METAL_NICS=eth0,aa:bb:cc:dd:ee:ff METAL_NET_TIMEOUT=90s METAL_WAIT_TIMEOUT=30m METAL_NET_POLICY=all METAL_HANDOFF=builtin DEBUG=1 ip=off -- init args";
/** pixie's MetalConfig (metal-stack/pixie@8b0f1da5 api/api.go:4), every field set, plus our two extensions. */
const BOOT_ANSWER = {
  metal_apiserver_url: "https://[fd00::10]:8443",
  metal_apiserver_token_for_hammer: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln",
  partition: "fra-equ01",
  ntp_servers: ["2001:db8::123"],
  debug: false,
  pixie_api_url: "https://[fd00::1]/",
  logging: {
    endpoint: "https://[fd00::20]:3100",
    basic_auth: { user: "u", password: "p" },
    certificate_auth: { cert: "", key: "", insecure_skip_verify: false },
    log_type: "loki",
  },
  image_cache_url: "https://[fd00::30]/",
};
/** Every method the agent calls, with the decoder of its answer (the generated wire contract). */
const METHODS = Object.fromEntries(
  [
    BootService.method.register,
    BootService.method.wait,
    BootService.method.installationSucceeded,
    BootService.method.superUserPassword,
    EventService.method.send,
    VersionService.method.get,
    HealthService.method.get,
  ].map((m) => [procedureOf(m), { res: decoder(m.output) }]),
);
const WAIT = procedureOf(BootService.method.wait);

const ANSWERS: Record<string, unknown> = {
  "metalstack.infra.v2.BootService/Register": { uuid: "u1", size: "c1-xlarge-x86", partition: "fra-equ01" },
  "metalstack.infra.v2.BootService/Wait": { allocation: { project: "p", hostname: "h", image: { id: "debian-12" } } },
  "metalstack.infra.v2.BootService/InstallationSucceeded": {},
  "metalstack.infra.v2.BootService/SuperUserPassword": { featureDisabled: false, superUserPassword: "secret-pw" },
  "metalstack.api.v2.VersionService/Get": { version: { version: "v0.5.0", revision: "abc" } },
  "metalstack.infra.v2.EventService/Send": { events: "1", failed: [] },
};

describe(`fuzz (seed ${SEED}, ${COUNT} cases each)`, () => {
  test("the kernel cmdline: config exits 0 or 2, never 1", async () => {
    const r = rng(SEED);
    const codes: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const text = mutate(r, GOOD_CMDLINE);
      const c = captureContext();
      const code = await runCli(["config", "--json", "--cmdline", text], c.ctx);
      if (code !== 0 && code !== 2) throw new Error(`case ${i} (seed ${SEED}): exit ${code} for ${JSON.stringify(text)}: ${c.err()}`);
      // A usage error is one line naming a parameter or the cmdline.
      if (code === 2) expect(c.err().trimEnd().split("\n").length).toBe(1);
      codes.push(String(code));
    }
    const t = tally(codes);
    // The mutations reach both outcomes, so the test can fail both ways.
    expect((t["0"] ?? 0) > COUNT / 20 && (t["2"] ?? 0) > COUNT / 20).toBe(true);
  });

  test("metal-boot's config answer: ok or bad_answer (24), never internal", async () => {
    const r = rng(SEED + 1);
    const codes: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const body = answerBody(r, BOOT_ANSWER);
      const code = await outcome(() => fetchBootConfig(fakeHttp({ status: 200, body }), new URL("https://[fd00::1]/"), "u1", new SecretSet()));
      if (code !== "ok" && code !== "bad_answer") throw new Error(`case ${i}: ${code} for ${new TextDecoder().decode(body).slice(0, 300)}`);
      codes.push(code);
    }
    const t = tally(codes);
    expect((t.ok ?? 0) > 0 && (t.bad_answer ?? 0) > COUNT / 2).toBe(true);
  });

  test("every Connect method's answer: ok or bad_answer (24), never internal", async () => {
    const r = rng(SEED + 2);
    for (const [method, { res }] of Object.entries(METHODS)) {
      const codes: string[] = [];
      for (let i = 0; i < COUNT / 5; i++) {
        const body = answerBody(r, ANSWERS[method] ?? {});
        const api = new ConnectClient(fakeHttp({ status: 200, body }), new URL("https://[fd00::10]:8443"), "token-0123456789abcdef");
        const code = await outcome(() => api.unary(method, {}, res));
        if (code !== "ok" && code !== "bad_answer") throw new Error(`${method} case ${i}: ${code} for ${new TextDecoder().decode(body).slice(0, 300)}`);
        codes.push(code);
      }
      expect(tally(codes).bad_answer ?? 0).toBeGreaterThan(0);
    }
  });

  test("image checksum sidecars: a checksum or an error text (image_cache, 30), never a throw", () => {
    const r = rng(SEED + 5);
    const kinds: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const text = mutate(r, `${"ab".repeat(32)}  debian-12.tar.lz4\n`);
      const got = parseChecksumFile(text, pick(r, ["sha256", "md5"] as const));
      kinds.push("error" in got ? "error" : "ok");
    }
    const t = tally(kinds);
    expect((t.ok ?? 0) > 0 && (t.error ?? 0) > 0).toBe(true);
  });

  test("Connect error bodies of any shape are read as code and message, never thrown", () => {
    const r = rng(SEED + 3);
    for (let i = 0; i < COUNT; i++) {
      const body = answerBody(r, { code: "permission_denied", message: "token expired" });
      const status = pick(r, [400, 401, 403, 404, 408, 429, 500, 502, 503, 504, 599]);
      const e = parseConnectError(status, body);
      expect(typeof e.code).toBe("string");
      expect(typeof e.message).toBe("string");
    }
  });

  test("Wait streams of mutated envelopes: messages, or bad_answer (24) naming the fault; never internal", async () => {
    const r = rng(SEED + 4);
    const codes: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const parts: Buffer[] = [];
      for (let k = int(r, 4); k > 0; k--) parts.push(envelope(0, Buffer.from(answerBody(r, r() < 0.5 ? {} : ANSWERS["metalstack.infra.v2.BootService/Wait"]))));
      if (r() < 0.8) parts.push(envelope(2, r() < 0.7 ? "{}" : Buffer.from(answerBody(r, { error: { code: "unavailable", message: "x" } }))));
      let bytes = Buffer.concat(parts);
      // Byte damage: flips (flags, lengths), truncation, garbage.
      for (let k = int(r, 3); k > 0; k--) {
        const at = int(r, bytes.length + 1);
        const op = int(r, 3);
        if (op === 0 && bytes.length > 0) bytes[Math.min(at, bytes.length - 1)] = int(r, 256);
        else if (op === 1) bytes = bytes.subarray(0, at);
        else bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([int(r, 256), int(r, 256), int(r, 256)]), bytes.subarray(at)]);
      }
      // Arbitrary chunking.
      const chunks: Uint8Array[] = [];
      for (let off = 0; off < bytes.length; ) {
        const n = 1 + int(r, 64);
        chunks.push(bytes.subarray(off, off + n));
        off += n;
      }
      const api = new ConnectClient(fakeHttp({ status: 200, body: new Uint8Array(), chunks }), new URL("https://[fd00::10]:8443"), "token-0123456789abcdef");
      const code = await outcome(async () => {
        for await (const _ of api.serverStream(WAIT, { uuid: "u1" }, METHODS[WAIT]!.res, { retry: false })) {
          /* drain */
        }
      });
      // The end-of-stream envelope may carry a connect error: its mapped codes are answers too (api_error, unreachable, auth).
      if (!["ok", "bad_answer", "api_error", "unreachable", "auth"].includes(code)) throw new Error(`case ${i}: ${code} for ${bytes.toString("hex").slice(0, 200)}`);
      codes.push(code);
    }
    const t = tally(codes);
    expect((t.ok ?? 0) > 0 && (t.bad_answer ?? 0) > 0).toBe(true);
  });

  test("LZ4 frames, mutated and cut into random chunks: decoded or Lz4Error naming the fault; never another throw, never a crash", async () => {
    // 192 KiB, part text, part noise: three 64 KiB blocks (-B4), linked (-BD), block checksums (-BX), content checksum.
    const r = rng(SEED + 7);
    const plain = Buffer.alloc(192 * 1024);
    for (let i = 0; i < plain.length; i++) plain[i] = i % 3 === 0 ? int(r, 256) : 97 + ((i >> 4) % 26);
    const z = spawnSync("lz4", ["-B4", "-BD", "-BX", "-c"], { input: plain, maxBuffer: 8 << 20 });
    expect(z.status).toBe(0);
    const frame: Buffer = z.stdout;
    const kinds: string[] = [];
    for (let i = 0; i < COUNT / 3; i++) {
      const bad = mutateBytes(r, frame);
      const d = lz4Decoder();
      let out = 0;
      try {
        for (let at = 0; at < bad.length; ) {
          const n = 1 + int(r, 70_000);
          await d.push(bad.subarray(at, at + n), async (b) => void (out += b.byteLength));
          at += n;
        }
        d.finish();
        kinds.push("ok");
      } catch (e) {
        if (!(e instanceof Lz4Error)) throw new Error(`case ${i}: ${String(e)}`);
        expect(e.message).toMatch(/^lz4: .+ \(at or after compressed byte \d+\)$/);
        kinds.push("bad");
      } finally {
        d.close();
      }
      expect(out).toBeLessThanOrEqual(8 << 20);
    }
    const t = tally(kinds);
    expect((t.ok ?? 0) > 0 && (t.bad ?? 0) > 0).toBe(true);
  });
});

/** A few byte-level changes: flips, inserts, deletions, a cut, a copied slice. */
function mutateBytes(r: R, b: Buffer): Buffer {
  let out = Buffer.from(b);
  for (let k = r() < 0.1 ? 0 : 1 + int(r, 4); k > 0; k--) {
    const at = int(r, out.length + 1);
    switch (int(r, 5)) {
      case 0:
        if (at < out.length) out[at] = out[at]! ^ (1 << int(r, 8));
        break;
      case 1:
        out = Buffer.concat([out.subarray(0, at), Buffer.from([int(r, 256), int(r, 256)]), out.subarray(at)]);
        break;
      case 2:
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + int(r, 64))]);
        break;
      case 3:
        out = out.subarray(0, at);
        break;
      default: {
        const from = int(r, out.length + 1);
        out = Buffer.concat([out.subarray(0, at), out.subarray(from, from + int(r, 4096)), out.subarray(at)]);
      }
    }
  }
  return out;
}
