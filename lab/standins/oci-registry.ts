/**
 * Debian's docker-registry (the CNCF distribution registry) on loopback for tests: TLS
 * with a certificate of the stand-in CA (pki.ts), htpasswd (bcrypt) authentication, a
 * unique port, storage in a directory of its own. `push` copies an OCI layout into it
 * with skopeo (credentials through an auth file, never argv; digests preserved, so a plain
 * tar layer stays one: skopeo would gzip it otherwise). Stopped by its PID.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../base/wait.ts";
import { makeServerCert, type Ca } from "./pki.ts";

export interface OciRegistry {
  /** host:port */
  readonly address: string;
  readonly storage: string;
  readonly log: () => string;
  push(layout: string, tag: string, repository: string): void;
  stop(): Promise<void>;
}

/**
 * `proxy`: a pull-through mirror of that registry (distribution's proxy mode: it pulls with
 * the user's credentials, trusting the CA), itself open to anonymous pulls.
 */
export async function startOciRegistry(dir: string, ca: Ca, user: { name: string; password: string }, opts: { proxy?: string; host?: string } = {}): Promise<OciRegistry> {
  /** Where it listens (default loopback; the lab: the router's address). */
  const host = opts.host ?? "127.0.0.1";
  mkdirSync(dir, { recursive: true });
  const cert = makeServerCert(ca, opts.proxy ? "mirror" : "registry", [host], ["localhost"]);
  writeFileSync(join(dir, "tls.crt"), cert.cert);
  writeFileSync(join(dir, "tls.key"), cert.key, { mode: 0o600 });
  const ht = spawnSync("htpasswd", ["-niB", user.name], { input: `${user.password}\n`, encoding: "utf8" });
  if (ht.status !== 0) throw new Error(`htpasswd failed: ${ht.stderr}`);
  writeFileSync(join(dir, "htpasswd"), ht.stdout);
  const storage = join(dir, "storage");
  let lastError = "";
  for (let tries = 0; tries < 5; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    // Given a host (the lab's namespace): every address of it, so that skopeo (which takes no IPv6
    // literal) pushes through localhost; on the host itself, loopback only.
    const listen = opts.host ? `:${port}` : address;
    const pushTo = opts.host ? `localhost:${port}` : address;
    writeFileSync(
      join(dir, "config.yml"),
      [
        "version: 0.1",
        "log: {level: info}",
        `storage: {filesystem: {rootdirectory: ${storage}}, delete: {enabled: true}}`,
        `http: {addr: "${listen}", tls: {certificate: ${join(dir, "tls.crt")}, key: ${join(dir, "tls.key")}}}`,
        opts.proxy
          ? `proxy: {remoteurl: "${opts.proxy}", username: ${JSON.stringify(user.name)}, password: ${JSON.stringify(user.password)}}`
          : `auth: {htpasswd: {realm: metal-hammer-test, path: ${join(dir, "htpasswd")}}}`,
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    let out = "";
    writeFileSync(join(dir, "ca.pem"), ca.pem);
    const env = { ...process.env, SSL_CERT_FILE: join(dir, "ca.pem") };
    const p: ChildProcess = spawn("docker-registry", ["serve", join(dir, "config.yml")], { stdio: ["ignore", "pipe", "pipe"], env });
    p.stdout?.on("data", (b) => (out += String(b)));
    p.stderr?.on("data", (b) => (out += String(b)));
    const exited = new Promise<void>((r) => p.once("exit", () => r()));
    const up = await waitFor(
      async () => {
        if (p.exitCode !== null) return "exited";
        const r = await fetch(`https://${address}/v2/`, { tls: { ca: ca.pem } } as RequestInit).catch(() => undefined);
        return r?.status === (opts.proxy ? 200 : 401) ? "up" : undefined;
      },
      20_000,
      "docker-registry answering on /v2/",
      100,
    ).catch(() => "timeout");
    if (up !== "up") {
      lastError = out;
      p.kill("SIGKILL");
      await exited;
      continue;
    }
    const certDir = join(dir, "certs.d");
    mkdirSync(certDir, { recursive: true });
    writeFileSync(join(certDir, "ca.crt"), ca.pem);
    const authFile = join(dir, "auth.json");
    writeFileSync(authFile, JSON.stringify({ auths: { [pushTo]: { auth: Buffer.from(`${user.name}:${user.password}`).toString("base64") } } }), { mode: 0o600 });
    return {
      address,
      storage,
      log: () => out,
      push(layout, tag, repository) {
        const r = spawnSync(
          "skopeo",
          [
            "copy",
            "--all",
            "--preserve-digests",
            "--quiet",
            "--dest-authfile",
            authFile,
            "--dest-cert-dir",
            certDir,
            `oci:${layout}:${tag}`,
            `docker://${pushTo}/${repository}:${tag}`,
          ],
          {
            encoding: "utf8",
            timeout: 120_000,
          },
        );
        if (r.status !== 0) throw new Error(`skopeo copy failed (${r.status}): ${r.stderr}`);
      },
      async stop() {
        if (p.exitCode === null) p.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (p.exitCode === null) p.kill("SIGKILL");
      },
    };
  }
  throw new Error(`docker-registry did not start: ${lastError.slice(-2000)}`);
}
