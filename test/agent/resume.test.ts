/**
 * `run --from register|wait` reads handoff.json and the token file it names: a field
 * that is not a URL is a usage error naming the field (exit 2), and a FIFO at either
 * path is refused at once instead of blocking the open.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeHandoff, type HandoffDocument } from "../../src/agent/handoff/document.ts";
import { resume } from "../../src/agent/resume.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-resume-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = "eyJhbGciOiJFUzI1NiJ9.e30.c2lnbmF0dXJl";

function doc(over: Partial<HandoffDocument>, tokenFile: string): HandoffDocument {
  return {
    version: 2,
    writtenAt: "2026-01-01T00:00:00.000Z",
    uuid: "00000000-6d68-6c00-0000-000000000001",
    uuidSource: "cmdline",
    partition: "fra",
    network: null,
    metalBootUrl: "https://[fd00::1]:8443/",
    apiserverUrl: "https://api.example:8443/",
    apiserverCa: null,
    apiserverVersion: null,
    imageCacheUrl: "https://cache.example/",
    ntpServers: [],
    tokenFile,
    tokenExpiresAt: null,
    timings: { stagesMs: {} },
    ...over,
  };
}

let n = 0;
/** A run directory with handoff.json (`over` applied) and a token file; returns both paths. */
function runDir(over: Partial<HandoffDocument> = {}, tokenFile?: string): { handoffFile: string; tokenFile: string } {
  const run = join(dir, `run-${n++}`);
  const token = tokenFile ?? join(run, "token");
  Bun.spawnSync(["mkdir", "-p", run]);
  if (!tokenFile) writeFileSync(token, `${TOKEN}\n`, { mode: 0o600 });
  const handoffFile = join(run, "handoff.json");
  writeFileSync(handoffFile, encodeHandoff(doc(over, token)));
  return { handoffFile, tokenFile: token };
}

async function resumeError(handoffFile: string): Promise<AgentError> {
  const e = await resume("register", { handoffFile, secrets: new SecretSet() }).then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof AgentError)) throw new Error(`expected an AgentError, got ${String(e)}`);
  return e;
}

function fifo(name: string): string {
  const p = join(dir, name);
  expect(Bun.spawnSync(["mkfifo", p]).exitCode).toBe(0);
  return p;
}

describe("resume", () => {
  test("reads the boot facts back: the URLs, the token (a known secret from then on)", async () => {
    const r = runDir();
    const secrets = new SecretSet();
    const facts = await resume("wait", { handoffFile: r.handoffFile, secrets });
    expect(facts.boot.apiserverUrl.href).toBe("https://api.example:8443/");
    expect(facts.boot.imageCacheUrl?.href).toBe("https://cache.example/");
    expect(facts.boot.tokenFile).toBe(r.tokenFile);
    expect(secrets.scrub(`token ${TOKEN}`)).toBe("token [redacted]");
  });

  for (const field of ["apiserverUrl", "metalBootUrl", "imageCacheUrl"] as const) {
    test(`${field} not an http(s) URL: usage (exit 2) naming the field, not an internal error`, async () => {
      const e = await resumeError(runDir({ [field]: "not a url" }).handoffFile);
      expect(e.code).toBe("usage");
      expect(e.exitCode).toBe(2);
      expect(e.message).toContain(`field ${field}: expected an http(s) URL, got "not a url"; run --from boot first`);
    });
  }

  test("an apiserverUrl of another scheme is refused the same way", async () => {
    const e = await resumeError(runDir({ apiserverUrl: "file:///etc/passwd" }).handoffFile);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("field apiserverUrl: expected an http(s) URL");
  });

  test("a token file that is a FIFO is refused at once (exit 2 naming it), not waited on", async () => {
    const tokenFile = fifo("token-fifo");
    const t0 = performance.now();
    const e = await resumeError(runDir({}, tokenFile).handoffFile);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(`its token file ${tokenFile} cannot be read (${tokenFile} is a FIFO, expected a regular file)`);
  }, 5_000);

  test("handoff.json itself a FIFO or a directory: refused at once, naming what it is", async () => {
    const h = fifo("handoff-fifo");
    expect((await resumeError(h)).message).toContain(`which cannot be read (${h} is a FIFO, expected a regular file)`);
    expect((await resumeError(dir)).message).toContain(`(${dir} is a directory, expected a regular file)`);
  }, 5_000);

  test("a token file larger than the cap is refused naming the cap", async () => {
    const big = join(dir, "big-token");
    writeFileSync(big, "x".repeat((1 << 20) + 1));
    const e = await resumeError(runDir({}, big).handoffFile);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("is larger than the cap of 1 MiB");
  });
});
