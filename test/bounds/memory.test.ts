/**
 * The agent as a process against hostile inputs and stand-ins on loopback: each case
 * asserts the exit code, the final line, and the peak RSS (VmHWM sampled from
 * /proc/PID/status while it runs) under PEAK_RSS_BOUND_KIB
 * (docs/bounds.md). Before the bounds, the endless 500 body grew the agent to 3 GiB.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AGENT, BLOCK_64K, PEAK_RSS_BOUND_KIB, REPO, chunk, endless, envelope, hostile, lastLine, runMeasured, type Hostile, type Run } from "./hostile.ts";

const servers: Hostile[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function serve(b: Parameters<typeof hostile>[0]): Promise<Hostile> {
  const h = await hostile(b);
  servers.push(h);
  return h;
}

const UUID = "00000000-0000-0000-0000-000000000001";
const CHUNKED = (status: string, type = "application/json") => `HTTP/1.1 ${status}\r\nTransfer-Encoding: chunked\r\nContent-Type: ${type}\r\n\r\n`;
const token = (h: Hostile) => [...AGENT, "token", "--cmdline", `METAL_BOOT_URL=${h.url}/ METAL_ALLOW_HTTP=1`, "--uuid", UUID];
const WAIT_DRIVER = [process.execPath, join(REPO, "test/bounds/wait-driver.ts")];

function expectBounded(r: Run): void {
  // The figure, for docs/bounds.md and the CI log.
  console.log(`peak RSS ${r.vmHwmKiB} KiB (VmHWM), ${r.ms} ms, exit ${r.code}`);
  expect(r.vmHwmKiB).toBeGreaterThan(0);
  expect(r.vmHwmKiB).toBeLessThan(PEAK_RSS_BOUND_KIB);
}

describe("metal-boot stand-ins (token)", () => {
  test("500 with an endless body: retried 3 times, each body cut at 64 KiB, exit 23 naming the status", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("500 Internal Server Error"));
      void endless(s, BLOCK_64K, c.count);
    });
    const r = await runMeasured(token(h));
    expect(r.code).toBe(23);
    expect(lastLine(r.err)).toBe(`metal-hammer: metal-boot: GET ${h.url}/config/${UUID} answered 500 after 4 attempt(s)`);
    expect(h.requests.length).toBe(4);
    expectBounded(r);
  });

  test("200 with an endless body: exit 24 naming the cap", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("200 OK"));
      void endless(s, BLOCK_64K, c.count);
    });
    const r = await runMeasured(token(h));
    expect(r.code).toBe(24);
    expect(lastLine(r.err)).toBe(`metal-hammer: metal-boot config: answer larger than the cap of 4194304 bytes from ${h.url}/config/${UUID} (see docs/bounds.md)`);
    expectBounded(r);
  });

  test("malformed HTTP: exit 24 saying so (not 23 [unknown])", async () => {
    const h = await serve((s) => void s.end("HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\nhello"));
    const r = await runMeasured(token(h));
    expect(r.code).toBe(24);
    expect(lastLine(r.err)).toStartWith(`metal-hammer: metal-boot config (${h.url}): the answer is not valid HTTP/1.1: `);
    expectBounded(r);
  });
});

describe("files from the command line", () => {
  test("config --file /dev/zero and kconfig check --config /dev/zero stop at their caps", async () => {
    const c = await runMeasured([...AGENT, "config", "--file", "/dev/zero"]);
    expect(c.code).toBe(2);
    expect(lastLine(c.err)).toBe("metal-hammer: cannot read the kernel cmdline from /dev/zero: /dev/zero is larger than the cap of 8 MiB (8388608 bytes) (see docs/bounds.md)");
    expectBounded(c);
    const k = await runMeasured([...AGENT, "kconfig", "check", "--config", "/dev/zero"]);
    expect(k.code).toBe(41);
    expect(lastLine(k.err)).toContain("/dev/zero is larger than the cap of 16 MiB");
    expectBounded(k);
  });
});

describe("apiserver Wait stand-ins (the real Wait in a process)", () => {
  const STREAM = Buffer.from(CHUNKED("200 OK", "application/connect+json"));

  test("an envelope claiming 0x7fffffff bytes: exit 24 naming it, at once (not 26 at the bound)", async () => {
    const h = await serve((s) => void s.write(Buffer.concat([STREAM, chunk(envelope(0, "{}", 0x7fffffff))])));
    const r = await runMeasured([...WAIT_DRIVER, h.url, "20000"]);
    expect(r.code).toBe(24);
    expect(lastLine(r.err)).toBe("metal-hammer: apiserver metalstack.infra.v2.BootService/Wait (stream): envelope at byte 0: length 2147483647 exceeds the limit of 4194304 bytes");
    expect(r.ms).toBeLessThan(15_000);
    expect(h.requests.length).toBe(1);
    expectBounded(r);
  });

  test("invalid JSON in an envelope: exit 24 naming it", async () => {
    const h = await serve((s) => void s.write(Buffer.concat([STREAM, chunk(envelope(0, "{not json"))])));
    const r = await runMeasured([...WAIT_DRIVER, h.url, "20000"]);
    expect(r.code).toBe(24);
    expect(lastLine(r.err)).toBe("metal-hammer: apiserver metalstack.infra.v2.BootService/Wait (stream): an envelope does not hold valid JSON (9 bytes)");
  });

  test("ANSI escapes and a newline in the server's error message reach the console as one escaped line (exit 21)", async () => {
    const body = JSON.stringify({ code: "permission_denied", message: "token revoked\n\u001b[2J\u001b[31mmetal-hammer: all good\u001b[0m\u009b" });
    const h = await serve((s) => void s.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
    const r = await runMeasured([...WAIT_DRIVER, h.url, "20000"]);
    expect(r.code).toBe(21);
    expect(
      r.err
        .trimEnd()
        .split("\n")
        .filter((l) => !l.startsWith("{")),
    ).toEqual([
      "metal-hammer: apiserver metalstack.infra.v2.BootService/Wait (stream): permission_denied: token revoked\\n\\x1b[2J\\x1b[31mmetal-hammer: all good\\x1b[0m\\x9b (the machine token was refused)",
    ]);
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(r.err)).toBe(false);
  });

  test("an endless error body on every reconnect: memory stays bounded until the wait bound (26)", async () => {
    const h = await serve((s, _r, c) => {
      s.write(CHUNKED("500 Internal Server Error"));
      void endless(s, BLOCK_64K, c.count);
    });
    const r = await runMeasured([...WAIT_DRIVER, h.url, "2000"]);
    expect(r.code).toBe(26);
    expect(lastLine(r.err)).toStartWith(`metal-hammer: no allocation for ${"00000000-0000-0000-0000-000000000001"} within METAL_WAIT_TIMEOUT=2s`);
    expect(h.requests.length).toBeGreaterThan(1);
    expectBounded(r);
  });

  test("a keepalive flood at debug with stderr not read: log lines dropped with a count, memory bounded, the final line arrives", async () => {
    const keepalive = chunk(envelope(0, "{}"));
    const flood = Buffer.concat(Array.from({ length: 2000 }, () => keepalive));
    const h = await serve((s, _r, c) => {
      s.write(STREAM);
      void endless(s, flood, c.count);
    });
    let errText = "";
    let sentMb = 0;
    const r = await runMeasured([...WAIT_DRIVER, h.url, "3000", "debug"], {
      // Read nothing until the flood has run past the wait bound's worth of keepalives, then everything.
      readErr: async (stream) => {
        const { waitFor } = await import("../../lab/base/wait.ts");
        await waitFor(() => h.closed() > 0, 30_000, "the agent to give up the flooded stream at its bound", 20);
        sentMb = h.sent() / 1e6;
        errText = await new Response(stream).text();
        return errText;
      },
    });
    expect(r.code).toBe(26);
    expect(sentMb).toBeGreaterThan(1);
    console.log(`flood: ${sentMb.toFixed(1)} MB of keepalives sent, ${r.err.length} bytes of stderr`);
    expect(lastLine(r.err)).toStartWith("metal-hammer: no allocation for 00000000-0000-0000-0000-000000000001 within METAL_WAIT_TIMEOUT=3s");
    const dropped = r.err.split("\n").filter((l) => l.includes('"event":"log.dropped"'));
    expect(dropped.length).toBeGreaterThan(0);
    expect(JSON.parse(dropped[0] ?? "{}").dropped).toBeGreaterThan(0);
    expectBounded(r);
  }, 60_000);
});
