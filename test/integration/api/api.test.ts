/**
 * The agent against the stand-ins over IPv6: metal-boot, apiserver and image cache
 * on the host end of a veth, the agent in a netns on the other end (root only).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Standins } from "../../../lab/standins/standins.ts";
import { runAgent, twoSwitches } from "./agent.ts";
import { madeBinary } from "../../helpers/made-binary.ts";
import { expectNothingLeaked, standinsOn } from "./suite.ts";
import { canRunNetns, createHostLink, type HostLink } from "../../helpers/netns.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3132";
/** Where the built-in flow stops here: the stand-in's allocation has no filesystemLayout (layout_refused, exit 61). */
const NO_LAYOUT = `the allocation of ${UUID} has no filesystemLayout: nothing to partition, nothing installed`;
const skip = canRunNetns();
// Named in the run; fails under CI=true when something is missing.
prerequisites("the api suite", [skip]);

let link: HostLink;
let st: Standins;
let dir: string;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "mha-api-"));
  link = await createHostLink();
  st = await standinsOn(link, dir, [{ uuid: UUID, partition: "fra-equ01" }], [link.name, "dns.mha.test"]);
});

afterAll(async () => {
  if (skip) return;
  try {
    // No token issued during the whole suite may appear in anything the agent printed or the stand-ins logged.
    expectNothingLeaked(st, dir);
  } finally {
    await st?.stop();
    await link?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

const original = () => ({ api: st.urls.api, images: `${st.urls.images}/` });
beforeEach(() => {
  if (skip) return;
  for (const f of Object.values(st.faults)) f.clear();
  st.metalBoot.override = undefined;
  st.metalBoot.apiserverUrl = original().api;
  st.metalBoot.imageCacheUrl = original().images;
  st.calls.length = 0;
  st.log.entries.length = 0;
  // Allocated up front: a builtin run goes through register, wipe (the driver's: a no-op) and wait to the layout step (no layout: exit 61).
  st.machines.reset();
  st.machines.allocate(UUID, { uuid: UUID, hostname: "standin" });
});

function cmdline(extra = "", bootUrl = `${st.urls.boot}/`): string {
  return `console=ttyS0 METAL_BOOT_URL=${bootUrl} METAL_CA=${st.bootCa.certFile} METAL_UUID=${UUID} ${extra}`.trim();
}

function runDir(): string {
  return mkdtempSync(join(dir, "run-"));
}

const events = (logs: Record<string, unknown>[], name: string) => logs.filter((l) => l.event === name);

describe.skipIf(skip !== undefined)(`api suite over IPv6 in a netns${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("happy path: run from boot to exec hand-off; the next stage gets the 0600 file and the same PID", async () => {
    const run = runDir();
    const next = join(dir, "next-stage.sh");
    const out = join(run, "next.out");
    writeFileSync(
      next,
      `#!/bin/sh\n{ echo "pid=$$"; echo "file=$METAL_HANDOFF_FILE"; stat -c 'mode=%a' "$METAL_HANDOFF_FILE"; } > "$NEXT_OUT"\ncat "$METAL_HANDOFF_FILE" > "$NEXT_OUT.json"\n`,
    );
    chmodSync(next, 0o755);
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", run, "--cmdline", cmdline(`METAL_HANDOFF=exec:${next}`)], { env: { NEXT_OUT: out } });
    expect(r.err).not.toContain("metal-hammer:");
    expect(r.code).toBe(0);
    const seen = Object.fromEntries(
      readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split("=")),
    );
    expect(seen.file).toBe(join(run, "handoff.json"));
    expect(seen.mode).toBe("600");
    // execve, not a child: the next stage runs with the agent's PID.
    expect(Number(seen.pid)).toBe(Number(events(r.logs, "agent.start")[0]?.pid));
    expect(events(r.logs, "handoff.exec").length).toBe(1);

    const doc = JSON.parse(readFileSync(`${out}.json`, "utf8"));
    expect(doc).toMatchObject({
      version: 2,
      uuid: UUID,
      uuidSource: "cmdline",
      partition: "fra-equ01",
      apiserverUrl: `${st.urls.api}/`,
      apiserverVersion: "v0.5.0-standin",
      imageCacheUrl: `${st.urls.images}/`,
      tokenFile: join(run, "token"),
      network: null,
    });
    expect(doc.apiserverCa).toContain("BEGIN CERTIFICATE");
    expect(Object.keys(doc.timings.stagesMs)).toEqual(["clock", "boot", "api", "image"]);
    expect(statSync(join(run, "token")).mode & 0o777).toBe(0o600);
    const token = readFileSync(join(run, "token"), "utf8");
    expect(st.tokens.verify(token)).toBe(UUID);

    // The apiserver saw the public VersionService/Get (no token), from the machine's IPv6 address.
    expect(st.calls.map((c) => [c.procedure, c.uuid])).toEqual([["metalstack.api.v2.VersionService/Get", undefined]]);
    const apiReqs = st.log.of("api").filter((e) => e.path.startsWith("/metalstack"));
    expect(apiReqs.at(-1)?.headers["connect-protocol-version"]).toBe("1");
    expect(apiReqs.at(-1)?.headers.authorization).toBeUndefined();
    expect(events(r.logs, "api.version")[0]).toMatchObject({ version: "v0.5.0-standin" });
    expect(new Set(st.log.entries.slice(-5).map((e) => e.source))).toEqual(new Set([link.machineAddr]));
    expect(events(r.logs, "boot.config")[0]).toMatchObject({ address: link.hostAddr, tokenSubject: UUID, caFromMetalBoot: true });
  });

  test("builtin hand-off: handoff.json written 0600, then the provisioning flow up to the layout step (no layout in the allocation: exit 61); METAL_IMAGE_CACHE_URL wins over metal-boot's image_cache_url", async () => {
    const run = runDir();
    const cache = `${st.urls.images}/cache-base`;
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", run, "--cmdline", cmdline(`METAL_IMAGE_CACHE_URL=${cache}`)], { lldp: twoSwitches(link.machineIf) });
    expect(r.code).toBe(61);
    expect(r.err).toContain(`metal-hammer: ${NO_LAYOUT}`);
    expect(statSync(join(run, "handoff.json")).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(run, "handoff.json"), "utf8"))).toMatchObject({ uuid: UUID, imageCacheUrl: cache });
    // The probe went to the cmdline's base (a HEAD; the bare base answers 404, below 500: the cache is there).
    expect(st.log.of("images").map((e) => [e.method, e.path, e.status])).toEqual([["HEAD", "/cache-base", 404]]);
    expect(events(r.logs, "image.probe")[0]).toMatchObject({ url: cache, status: 404 });
  });

  test("a CA that did not sign metal-boot: TLS error (exit 22) at once, no retries", async () => {
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline().replace(st.bootCa.certFile, st.apiCa.certFile)]);
    expect(r.code).toBe(22);
    expect(r.err).toMatch(/metal-hammer: metal-boot config \(https:\/\/\[fd00:6d68:[0-9a-f]+::1\]:\d+\): TLS verification failed: .*; trusted CAs: .*api-ca\.pem \(METAL_CA\)/);
    expect(events(r.logs, "http.retry")).toEqual([]);
    expect(r.ms).toBeLessThan(5_000);
  });

  test("the apiserver is trusted only through the CA metal-boot hands out", async () => {
    st.metalBoot.ca = undefined;
    try {
      const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline()]);
      expect(r.code).toBe(22);
      expect(r.err).toContain("apiserver metalstack.api.v2.VersionService/Get");
    } finally {
      st.metalBoot.ca = st.apiCa.pem;
    }
  });

  test("the apiserver refuses the token (401): auth error, exit 21", async () => {
    st.faults.api.set({ status: 401 });
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline()]);
    expect(r.code).toBe(21);
    expect(r.err).toContain("unauthenticated: stand-in fault: token refused (the machine token was refused)");
    expect(events(r.logs, "http.retry")).toEqual([]);
  });

  test("503 twice, then 200: succeeds after two logged retries", async () => {
    st.faults.api.set({ status: 503, count: 2 });
    // trace level: the token scan at the end covers the most verbose logs too.
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline("METAL_LOG_LEVEL=trace DEBUG=1")], {
      lldp: twoSwitches(link.machineIf),
    });
    expect(r.code).toBe(61); // the flow went on through the hand-off to the layout step
    const retries = events(r.logs, "http.retry");
    expect(retries.map((l) => [l.what, l.attempt, l.reason])).toEqual([
      ["apiserver metalstack.api.v2.VersionService/Get", 1, "status 503"],
      ["apiserver metalstack.api.v2.VersionService/Get", 2, "status 503"],
    ]);
    for (const l of retries) expect(String(l.msg)).toMatch(/next attempt in \d+ ms$/);
    // Version (after two 503s); the first event is refused (Send is INFRA only) and events stop; Register and Wait.
    expect(
      st.log
        .of("api")
        .filter((e) => e.path.startsWith("/metalstack"))
        .map((e) => `${e.status} ${e.path.split("/")[2]}`),
    ).toEqual(["503 Get", "503 Get", "200 Get", "403 Send", "200 Register", "200 Wait"]);
  });

  test("apiserver down: retries with jitter for the METAL_RETRY_WINDOW (docs/bounds.md; 60 s by default, 10 s here), then unreachable (exit 23) naming it", async () => {
    const WINDOW_MS = 10_000;
    const CAP_MS = 5_000; // DEFAULT_RETRY.capMs
    st.metalBoot.apiserverUrl = `https://[${link.hostAddr}]:9`; // nothing listens there
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline(`METAL_RETRY_WINDOW=${WINDOW_MS / 1000}s`)], { timeoutMs: 60_000 });
    expect(r.code).toBe(23);
    const m = /apiserver metalstack\.api\.v2\.VersionService\/Get \(https:\/\/\[[0-9a-f:]+\]:9\): cannot connect after (\d+) attempt\(s\)/.exec(r.err);
    expect(m).not.toBeNull();
    const retries = events(r.logs, "http.retry");
    expect(retries.length).toBe(Number(m?.[1]) - 1);
    // Each retry is a warn line naming what it waits for, the attempt and the delay: full jitter below min(5 s, 250 ms * 2^n).
    const delays = retries.map((l, n) => {
      expect([l.level, l.what, l.attempt, l.reason]).toEqual([40 /* warn */, "apiserver metalstack.api.v2.VersionService/Get", n + 1, "ECONNREFUSED"]);
      expect(String(l.msg)).toEndWith(`next attempt in ${l.delayMs} ms`);
      const d = Number(l.delayMs);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(Math.min(CAP_MS, 250 * 2 ** n));
      return d;
    });
    expect(new Set(delays).size).toBeGreaterThan(1); // jittered, not a fixed schedule
    // At least five retries: the ceilings of the first five add up to 7.75 s, inside the window.
    expect(retries.length).toBeGreaterThanOrEqual(5);
    // The window is time, not a count: no retry ends after it, and one is skipped only when it would, so the
    // run lasts at least the window minus one cap and not much more than the window.
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(WINDOW_MS);
    expect(r.ms).toBeGreaterThan(WINDOW_MS - CAP_MS);
    expect(r.ms).toBeLessThan(WINDOW_MS + 20_000);
    // A window that is not a duration in bounds is a usage error naming it.
    const bad = await runAgent(link.ns, ["token", "--cmdline", cmdline("METAL_RETRY_WINDOW=0s")]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('METAL_RETRY_WINDOW="0s": expected a duration between 1s and 3600s');
  }, 60_000);

  test("metal-boot mints a token for any uuid (pixie); a 404 is a wrong URL, exit 20 naming it", async () => {
    const other = await runAgent(link.ns, ["token", "--json", "--uuid", "11111111-2222-3333-4444-555555555555", "--cmdline", cmdline()]);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.out).token.subject).toBe("11111111-2222-3333-4444-555555555555");
    st.faults.boot.set({ status: 404 });
    const r = await runAgent(link.ns, ["token", "--cmdline", cmdline()]);
    expect(r.code).toBe(20);
    expect(r.err).toContain(`/config/${UUID} answered 404 after 1 attempt(s) (metal-boot serves /config/<uuid> for any machine: is METAL_BOOT_URL right?)`);
  });

  test("a metal-boot answer that misses a field: bad_answer (exit 24) naming the field", async () => {
    st.metalBoot.override = () => ({ partition: "p", metal_apiserver_url: "https://[fd00::1]/" });
    const r = await runAgent(link.ns, ["token", "--cmdline", cmdline()]);
    expect(r.code).toBe(24);
    expect(r.err).toContain("field metal_apiserver_token_for_hammer");
  });

  test("token --json shows subject and expiry, never the token", async () => {
    const r = await runAgent(link.ns, ["token", "--json", "--cmdline", cmdline()]);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out);
    expect(v.token).toMatchObject({ kind: "jwt", subject: UUID, issuer: "metal-boot-standin" });
    expect(Date.parse(v.token.expiresAt)).toBeGreaterThan(Date.now());
    expect(v.address).toBe(link.hostAddr);
  });

  test("reach --json: all three servers ok, with the address used and latency", async () => {
    const r = await runAgent(link.ns, ["reach", "--json", "--image", "debian/12/img.tar.lz4", "--verify-image", "--cmdline", cmdline()]);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out);
    expect(v.ok).toBe(true);
    expect(v.targets.map((t: { target: string; ok: boolean; address: string }) => [t.target, t.ok, t.address])).toEqual([
      ["metal-boot", true, link.hostAddr],
      ["apiserver", true, link.hostAddr],
      ["image-cache", true, link.hostAddr],
    ]);
    // reach checks the apiserver as the api stage does: the public VersionService/Get, its version shown.
    expect(v.targets[1].detail).toBe("VersionService/Get: version v0.5.0-standin");
    expect(v.targets[2].detail).toContain(`${st.image.byteLength} bytes, sha256:`);
  });

  test("a slow apiserver: still ok, and the latency shown is the real one", async () => {
    st.faults.api.set({ slowMs: 1200 });
    const r = await runAgent(link.ns, ["reach", "--json", "--cmdline", cmdline()]);
    expect(r.code).toBe(0);
    const [boot, api] = JSON.parse(r.out).targets;
    expect(api.latencyMs).toBeGreaterThanOrEqual(1200);
    expect(boot.latencyMs).toBeLessThan(1200);
  });

  test("host names resolve in the netns and match the certificates' SAN", async () => {
    const port = (u: string) => new URL(u).port;
    st.metalBoot.apiserverUrl = `https://${link.name}:${port(st.urls.api)}`;
    st.metalBoot.imageCacheUrl = `https://${link.name}:${port(st.urls.images)}/`;
    const r = await runAgent(link.ns, ["reach", "--json", "--cmdline", cmdline("", `https://${link.name}:${port(st.urls.boot)}/`)]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).targets.map((t: { address: string }) => t.address)).toEqual([link.hostAddr, link.hostAddr, link.hostAddr]);
  });

  test("host names resolve through the resolv.conf in the netns (DNS stand-in, AAAA)", async () => {
    const { startDns } = await import("../../../lab/standins/dns.ts");
    const name = "dns.mha.test";
    const dns = await startDns(link.hostAddr, 53, new Map([[name, link.hostAddr]]));
    const resolv = `/etc/netns/${link.ns}/resolv.conf`;
    writeFileSync(resolv, `nameserver ${link.hostAddr}\n`);
    try {
      const port = (u: string) => new URL(u).port;
      st.metalBoot.apiserverUrl = `https://${name}:${port(st.urls.api)}`;
      const r = await runAgent(link.ns, ["reach", "--json", "--cmdline", cmdline("", `https://${name}:${port(st.urls.boot)}/`)]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).targets.map((t: { ok: boolean }) => t.ok)).toEqual([true, true, true]);
      expect(dns.queries).toContain(`${name}/28`);
    } finally {
      writeFileSync(resolv, "");
      await dns.stop();
    }
  });

  test("image cache: .md5 is used when there is no .sha256", async () => {
    st.faults.images.set({ hideSha256: true });
    const r = await runAgent(link.ns, ["reach", "--json", "--image", "debian/12/img.tar.lz4", "--verify-image", "--cmdline", cmdline()]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).targets[2].detail).toContain("md5:");
  });

  test("image cache faults: truncated and corrupted images, persistent 503 (exit 30 each)", async () => {
    for (const [fault, text] of [
      [{ truncate: true }, /truncated|broke off/],
      [{ corrupt: true }, /is corrupted: sha256 [0-9a-f]{64}, expected [0-9a-f]{64}/],
      [{ status: 503 }, /answered 503 after 3 attempt\(s\)/],
    ] as const) {
      st.faults.images.set(fault);
      const r = await runAgent(link.ns, ["reach", "--json", "--image", "debian/12/img.tar.lz4", "--verify-image", "--cmdline", cmdline()]);
      expect(r.code).toBe(30);
      const img = JSON.parse(r.out).targets[2];
      expect(img.ok).toBe(false);
      expect(img.error).toMatch(text);
    }
  });

  test("plain http is refused unless METAL_ALLOW_HTTP=1", async () => {
    st.metalBoot.imageCacheUrl = `http://[${link.hostAddr}]:9/`;
    const r = await runAgent(link.ns, ["reach", "--json", "--cmdline", cmdline()]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).targets[2].error).toContain("plain http is refused unless METAL_ALLOW_HTTP=1");
  });

  test("the compiled binary (Makefile flags) verifies the custom CA and execs the next stage", async () => {
    // The Makefile's dist/metal-hammer (its rule, its flags): made by make when missing or stale, else reused.
    const binary = madeBinary();
    expect(existsSync(binary)).toBe(true);
    const ok = await runAgent(link.ns, ["reach", "--json", "--cmdline", cmdline()], { binary });
    expect(ok.code).toBe(0);
    const bad = await runAgent(link.ns, ["token", "--cmdline", cmdline().replace(st.bootCa.certFile, st.apiCa.certFile)], { binary });
    expect(bad.code).toBe(22);
    // execve through bun:ffi works in the compiled binary as well.
    const run = runDir();
    const next = join(run, "next.sh");
    writeFileSync(next, `#!/bin/sh\necho "handoff=$METAL_HANDOFF_FILE pid=$$"\n`);
    chmodSync(next, 0o755);
    const ex = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", run, "--cmdline", cmdline(`METAL_HANDOFF=exec:${next}`)], { binary });
    expect(ex.code).toBe(0);
    expect(ex.out.trim()).toBe(`handoff=${join(run, "handoff.json")} pid=${events(ex.logs, "agent.start")[0]?.pid}`);
    // The built-in flow in the compiled binary (protobuf-es and the LLDP reader Worker inside it): no LLDP peer in the
    // netns, so after METAL_LLDP_TIMEOUT (short here: nothing can arrive) the strict apiserver refuses Register in
    // operator words; without the two-switch rule it goes through Register and Wait.
    const lldp = "METAL_LLDP_TIMEOUT=1s";
    const refused = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline(lldp)], { binary });
    expect(refused.code).toBe(25);
    expect(refused.err).toContain("metal-hammer: apiserver refused Register: machine is not connected to exactly two switches (LLDP saw: no switch)");
    st.machines.switchRule = false;
    const builtin = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", runDir(), "--cmdline", cmdline(lldp)], { binary });
    // The compiled binary has the real disks stages: on this host (not an initramfs) the wipe refuses before touching a disk.
    expect(builtin.code).toBe(63);
    expect(builtin.err).toContain("metal-hammer: refusing to wipe the disks: / is ");
    expect(builtin.err).toContain("not the agent's initramfs");
    expect(Number((st.machines.registered.get(UUID)?.hardware as { memory: string }).memory)).toBeGreaterThan(0);
  }, 120_000);
});

describe.skipIf(skip !== undefined)("Connect server streaming (Wait) against the stand-in", () => {
  const client = async () => {
    const { HttpClient } = await import("../../../src/clients/http/http-client.ts");
    const { ConnectClient } = await import("../../../src/clients/api/connect-client.ts");
    const { silentLogger } = await import("../../../src/platform/log/logger.ts");
    const http = new HttpClient({ caBundle: st.apiCa.certFile, allowHttp: false, log: silentLogger(), retry: { attempts: 1, baseMs: 1, capMs: 1, totalMs: 1 } });
    return { http, api: new ConnectClient(http, new URL(st.urls.api), st.tokens.issue(UUID)) };
  };
  const collect = async (fault: Record<string, unknown>) => {
    const { callStream } = await import("../../../src/clients/api/rpc.ts");
    const { BootService } = await import("../../../src/gen/metalstack/infra/v2/boot_pb.ts");
    st.faults.api.set(fault);
    const { http, api } = await client();
    const got: unknown[] = [];
    try {
      for await (const m of callStream(api, BootService.method.wait, { uuid: UUID })) {
        got.push({ allocation: { uuid: m.allocation?.uuid, hostname: m.allocation?.hostname } });
        break;
      }
      return { got, error: undefined };
    } catch (e) {
      return { got, error: e as { code: string; message: string } };
    } finally {
      await http.close();
    }
  };

  test("the allocation as the first message (the stream stays open: upstream never ends it)", async () => {
    const r = await collect({});
    expect(r.error).toBeUndefined();
    expect(r.got).toEqual([{ allocation: { uuid: UUID, hostname: "standin" } }]);
    const wait = st.log.of("api").at(-1);
    expect(wait?.headers["content-type"]).toBe("application/connect+json");
  });

  test("an error in the end-of-stream message becomes the mapped error", async () => {
    const r = await collect({ streamError: "permission_denied" });
    expect(r.got.length).toBe(0);
    expect(r.error?.code).toBe("auth");
    expect(r.error?.message).toContain("permission_denied: stand-in fault");
  });

  test("a stream cut inside an envelope is a bad_answer", async () => {
    const r = await collect({ streamTruncate: true });
    expect(r.got).toEqual([]);
    expect(r.error?.code).toBe("bad_answer");
    expect(r.error?.message).toContain("stream truncated");
  });
});

describe.skipIf(skip !== undefined)("exec hand-off errors", () => {
  test("a next stage that is not executable: handoff error (31) before the hand-off file is written", async () => {
    const run = runDir();
    const r = await runAgent(link.ns, ["run", "--from", "boot", "--run-dir", run, "--cmdline", cmdline(`METAL_HANDOFF=exec:${join(dir, "no-such-stage")}`)]);
    expect(r.code).toBe(31);
    expect(r.err).toContain(`METAL_HANDOFF=exec:${join(dir, "no-such-stage")}: not an executable file (ENOENT)`);
    expect(existsSync(join(run, "handoff.json"))).toBe(false);
  });
});
