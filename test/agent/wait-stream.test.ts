import { describe, expect, test } from "bun:test";
import type { ConnectClient } from "../../src/clients/api/connect-client.ts";
import { BadAnswerError } from "../../src/clients/http/bad-answer.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { waitForAllocation, type WaitEnv } from "../../src/agent/wait-stream.ts";

/** Each script entry is one stream: messages it yields, then how it ends. */
type Script = { messages: unknown[]; end?: AgentError | "hang" }[];

function fakeApi(script: Script): { api: Pick<ConnectClient, "serverStream">; opened: () => number } {
  let n = 0;
  return {
    opened: () => n,
    api: {
      serverStream: async function* (_p: string, _r: unknown, _s: unknown, opts?: { signal?: AbortSignal }) {
        const s = script[n++];
        if (!s) throw new Error("script exhausted");
        for (const m of s.messages) yield (_s as (raw: unknown, what: string) => unknown)(m, "test message") as never;
        if (s.end === "hang") {
          await new Promise<void>((_, rej) => opts?.signal?.addEventListener("abort", () => rej(new Error("aborted"))));
        }
        if (s.end) throw s.end;
      } as ConnectClient["serverStream"],
    },
  };
}

function fakeEnv(): WaitEnv & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return { sleeps, now: () => now, random: () => 0.5, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) };
}

function logs() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() }) };
}

const POLICY = { timeoutMs: 3_600_000, baseMs: 1_000, capMs: 30_000, minMs: 100, healthyMs: 60_000, streamMs: 600_000 };

describe("waitForAllocation", () => {
  test("messages without an allocation are skipped (upstream sends none); the first with an allocation ends the wait", async () => {
    const { api } = fakeApi([{ messages: [{}, { unknownField: 1 }, { allocation: { hostname: "m1", image: { id: "debian-12" } } }] }]);
    const { lines, log } = logs();
    const r = await waitForAllocation(api, "u1", POLICY, log, fakeEnv());
    expect([r.allocation.hostname, r.allocation.image?.id, r.waitedMs, r.reconnects]).toEqual(["m1", "debian-12", 0, 0]);
    expect(lines.map((l) => l.event)).toEqual(["provision.wait", "provision.wait.keepalive", "provision.wait.keepalive"]);
    expect(lines[0]?.msg).toBe("waiting for an allocation of u1 (metalstack.infra.v2.BootService/Wait, up to 1h)");
  });

  test("the allocation is also handed back exactly as sent: fields our proto/ lacks are kept, the decoded message drops them", async () => {
    const sent = {
      hostname: "m1",
      vpn: { controlPlaneAddress: "https://vpn.example", flavor: "FLAVOR_WIREGUARD" },
      placement_labels: { labels: { rack: "r1" } },
      zFuture: [1, "2", null],
    };
    const { api } = fakeApi([{ messages: [{ allocation: sent, alsoUnknown: true }] }]);
    const r = await waitForAllocation(api, "u1", POLICY, logs().log, fakeEnv());
    expect(r.allocationJson).toEqual(sent);
    expect([r.allocation.hostname, r.allocation.vpn?.controlPlaneAddress, r.allocation.placementLabels?.labels]).toEqual(["m1", "https://vpn.example", { rack: "r1" }]);
  });

  test("a stream that breaks or ends is reopened after a jittered delay, one warn line each", async () => {
    const { api, opened } = fakeApi([
      { messages: [], end: new BadAnswerError("apiserver Wait (stream): stream truncated", false) },
      { messages: [{}] },
      { messages: [{ allocation: { hostname: "m1" } }] },
    ]);
    const env = fakeEnv();
    const { lines, log } = logs();
    const r = await waitForAllocation(api, "u1", POLICY, log, env);
    expect(opened()).toBe(3);
    expect(r.reconnects).toBe(2);
    expect(env.sleeps).toEqual([500, 1000]);
    const rec = lines.filter((l) => l.event === "provision.wait.reconnect");
    expect(rec.map((l) => [l.reconnect, l.delayMs, l.level])).toEqual([
      [1, 500, 40],
      [2, 1000, 40],
    ]);
    expect(rec[0]?.msg).toBe("metalstack.infra.v2.BootService/Wait: apiserver Wait (stream): stream truncated; reconnect 1 in 500 ms");
    expect(rec[1]?.reason).toBe("the stream ended without an allocation");
  });

  test("a refused token ends the wait at once with the auth error", async () => {
    const { api, opened } = fakeApi([{ messages: [], end: new AgentError("auth", "unauthenticated") }]);
    const err = await waitForAllocation(api, "u1", POLICY, logs().log, fakeEnv()).catch((e) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err.code).toBe("auth");
    expect(opened()).toBe(1);
  });

  test("streams that keep breaking until the bound: wait_timeout naming the bound and the reconnects", async () => {
    const down = () => ({ messages: [], end: new AgentError("unreachable", "cannot connect") });
    const { api } = fakeApi(Array.from({ length: 50 }, down));
    const { lines, log } = logs();
    const err = await waitForAllocation(api, "u1", { ...POLICY, timeoutMs: 10_000 }, log, fakeEnv()).catch((e) => e);
    expect(err.code).toBe("wait_timeout");
    expect(err.exitCode).toBe(26);
    // Broken to the end: the error names the last break, not "registered but not allocated".
    expect(err.message).toMatch(
      /^no allocation for u1 within METAL_WAIT_TIMEOUT=10s \(metalstack\.infra\.v2\.BootService\/Wait, \d+ reconnect\(s\)\); the last stream broke: cannot connect$/,
    );
    expect(err.details.lastBreak).toBe("cannot connect");
    expect(lines.at(-1)?.event).toBe("provision.wait.timeout");
  });

  test("a silent stream is closed after its lifetime and reopened (info line, not a warning)", async () => {
    const { api, opened } = fakeApi([{ messages: [], end: "hang" }, { messages: [{ allocation: { hostname: "m1" } }] }]);
    const { lines, log } = logs();
    const r = await waitForAllocation(api, "u1", { ...POLICY, streamMs: 150 }, log, fakeEnv());
    expect(opened()).toBe(2);
    expect(r.reconnects).toBe(1);
    const rec = lines.filter((l) => l.event === "provision.wait.reconnect");
    expect(rec.map((l) => [l.level, l.reason])).toEqual([[30, "no allocation within the stream's lifetime of 150ms; reopening it"]]);
  });

  test("a healthy stream to the deadline after an earlier break: wait_timeout says registered but not allocated", async () => {
    // The open stream's lifetime is cut to the time left, so it may be reopened once more before the deadline.
    const { api } = fakeApi([
      { messages: [], end: new AgentError("unreachable", "cannot connect") },
      { messages: [], end: "hang" },
      { messages: [], end: "hang" },
    ]);
    const { log } = logs();
    const err = await waitForAllocation(api, "u1", { ...POLICY, timeoutMs: 300, baseMs: 10, minMs: 1, streamMs: 60_000 }, log, fakeEnv()).catch((e) => e);
    expect(err.code).toBe("wait_timeout");
    expect(err.message).toEndWith("; the machine is registered but not allocated");
  });

  test("an idle stream is aborted at the deadline (real timer, 300 ms bound)", async () => {
    const { api } = fakeApi([{ messages: [{}], end: "hang" }]);
    const t0 = performance.now();
    const err = await waitForAllocation(api, "u1", { ...POLICY, timeoutMs: 300 }, logs().log).catch((e) => e);
    expect(err.code).toBe("wait_timeout");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
