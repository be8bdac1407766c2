/**
 * Installing from an OCI registry against Debian's docker-registry on loopback (TLS with
 * a stand-in CA, htpasswd authentication, a unique port), the test OS pushed by skopeo as
 * an image index with three layers (gzip, zstd and a plain tar, digests preserved) whose
 * later layers white out files, a directory, a symbolic link and an opaque directory of
 * the first. Checked: the tree equals the tar.lz4 install of the same final tree (modes,
 * owners, hard links, symlinks, xattrs, contents); a layer cut by a proxy is resumed with
 * Range; wrong or missing credentials are exit 21 with no secret in any line; a corrupted
 * blob is exit 51 naming the layer; token auth (a proxy speaking distribution's token
 * spec in front), a token expiring during a cut layer renewed. Root: tar restores owners.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../../src/platform/errors.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { installImage, type ImageEnv } from "../../../src/install/image.ts";
import { installOciImage } from "../../../src/install/oci/pull.ts";
import { parseManifestDocument } from "../../../src/install/oci/manifest.ts";
import { parseOciReference } from "../../../src/install/oci/reference.ts";
import { RegistryClient } from "../../../src/install/oci/registry-client.ts";
import { realTimers } from "../../../src/platform/io/timers.ts";
import { silentLogger, type Logger } from "../../../src/platform/log/logger.ts";
import { buildOciTestImage, type OciTestImage } from "../../../lab/images/oci-image.ts";
import { startImageServer, type ImageServer } from "../../../lab/images/server.ts";
import { startOciRegistry, type OciRegistry } from "../../../lab/standins/oci-registry.ts";
import { makeCa, makeServerCert, type Ca } from "../../../lab/standins/pki.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { captureContext } from "../../helpers/capture.ts";
import { runCli } from "../../../src/cli/program.ts";

const missing = [
  process.getuid?.() !== 0 && "root",
  ...["docker-registry", "skopeo", "htpasswd", "openssl", "tar", "lz4", "zstd", "setfattr", "getfattr"].map((t) => Bun.which(t) === null && t),
  !existsSync("/bin/busybox") && "/bin/busybox",
];
const ready = prerequisites("OCI registry install", missing);

/** Every entry of a tree: type, mode, owner, link count, size and content hash or link target; xattrs. */
function listing(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(join(root, p));
      const kind = st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : st.isFile() ? "f" : "o";
      const what =
        kind === "f" ? `${st.size} ${new Bun.CryptoHasher("sha256").update(readFileSync(join(root, p))).digest("hex")}` : kind === "l" ? `-> ${readlinkSync(join(root, p))}` : "";
      out.push(`${p} ${kind} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} n${kind === "d" ? "" : st.nlink} ${what}`);
      if (kind === "d") walk(p);
    }
  };
  walk("");
  const xattrs = spawnSync("getfattr", ["-R", "-P", "-d", "-m", "-", "-e", "base64", "."], { cwd: root, encoding: "utf8" }).stdout;
  return [...out, ...xattrs.split("\n").filter((l) => l !== "")];
}

/** One byte of a blob in a docker-registry's filesystem storage flipped (100 bytes before its end). */
function corruptBlob(storage: string, digest: string): void {
  const hex = digest.slice("sha256:".length);
  const data = join(storage, "docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex, "data");
  const bytes = readFileSync(data);
  const at = bytes.byteLength - 100;
  bytes[at] = (bytes[at] as number) ^ 0xff;
  writeFileSync(data, bytes);
}

describe.skipIf(!ready)("install from an OCI registry (docker-registry, TLS, htpasswd)", () => {
  let work: string;
  let ca: Ca;
  let img: OciTestImage;
  let registry: OciRegistry;
  let http: HttpClient;
  /** The index's entries as the registry holds them. */
  let pushed: Record<string, string>;
  const user = { name: "hammer", password: "registry-pw-0f3c9a" };
  const repo = "metal/testos";
  const noWait: ImageEnv = { now: () => performance.now(), after: realTimers.after, random: () => 0, sleep: async () => {} };
  const configs = () => ({ [`https://${registry.address}`]: { username: user.name, password: user.password } });
  const ref = () => `oci://${registry.address}/${repo}:${img.tag}`;
  const target = () => mkdtempSync(join(work, "root-"));

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mh-oci-it-"));
    img = buildOciTestImage(join(work, "image"), { padMib: 4 });
    ca = makeCa(join(work, "pki"), "ca");
    writeFileSync(join(work, "ca.pem"), ca.pem);
    registry = await startOciRegistry(join(work, "registry"), ca, user);
    registry.push(img.layout, img.tag, repo);
    http = new HttpClient({ caBundle: join(work, "ca.pem"), allowHttp: true, log: silentLogger() });
    const client = new RegistryClient({ http, ref: parseOciReference(ref()), credentials: { username: user.name, password: user.password }, log: silentLogger() });
    const index = parseManifestDocument((await client.manifest(img.tag)).bytes, undefined, "index");
    if (index.kind !== "index") throw new Error("skopeo pushed no index");
    pushed = Object.fromEntries(index.manifests.map((m) => [m.platform?.architecture ?? "", m.digest]));
  }, 120_000);
  afterAll(async () => {
    await registry?.stop();
    await http?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test("the index resolves to linux/amd64; three layers with whiteouts give the tree of the tar.lz4 install", async () => {
    const root = target();
    const cap = capturingLogger();
    const r = await installOciImage({ http, reference: ref(), root, log: cap.log, secrets: cap.secrets, ociConfigs: configs(), env: noWait });
    expect(r.manifest).toBe(pushed.amd64!);
    expect(r.manifest).toBe(img.manifest);
    expect(r.manifest).not.toBe(pushed.arm64!);
    expect(cap.events("install.oci.resolve")[0]?.platform).toBe("linux/amd64");
    expect(r.layers.map((l) => l.mediaType)).toEqual([
      "application/vnd.oci.image.layer.v1.tar+gzip",
      "application/vnd.oci.image.layer.v1.tar+zstd",
      "application/vnd.oci.image.layer.v1.tar",
    ]);
    expect(r.layers.map((l) => l.whiteouts)).toEqual([0, 4, 1]);
    expect(existsSync(join(root, "data/secret"))).toBe(false);
    expect(existsSync(join(root, "var/empty"))).toBe(false);
    expect(existsSync(join(root, "bin/dd"))).toBe(false);
    expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
    expect(readFileSync(join(root, "data/new-file"), "utf8")).toBe("new\n");
    expect(spawnSync("find", [root, "-name", ".wh.*"], { encoding: "utf8" }).stdout).toBe("");

    const server: ImageServer = await startImageServer(img.finalDir);
    try {
      const tarRoot = target();
      await installImage({ http, url: new URL("/img.tar.lz4", server.url), root: tarRoot, log: silentLogger(), env: noWait });
      expect(listing(root)).toEqual(listing(tarRoot));
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("a pinned digest installs the same image; a digest that is not there is exit 59", async () => {
    const root = target();
    const r = await installOciImage({ http, reference: `oci://${registry.address}/${repo}@${pushed.amd64}`, root, log: silentLogger(), ociConfigs: configs(), env: noWait });
    expect(r.manifest).toBe(pushed.amd64!);
    expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
    const gone = `sha256:${"0".repeat(64)}`;
    const e = await installOciImage({
      http,
      reference: `oci://${registry.address}/${repo}@${gone}`,
      root: target(),
      log: silentLogger(),
      ociConfigs: configs(),
      env: noWait,
    }).catch((x) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).exitCode).toBe(59);
    expect((e as AgentError).message).toContain(`manifest ${gone}`);
    expect((e as AgentError).message).toContain("answered 404 (MANIFEST_UNKNOWN");
  }, 60_000);

  /**
   * A TLS proxy in front of the registry (which it reaches with the test user's Basic
   * credentials): `cut` answers the first GET of that blob with its full Content-Length
   * and 1 MiB of body, then breaks the connection; `token` makes it a token-auth
   * registry (distribution's token spec): /v2/ wants `Bearer <token>`, /token hands one
   * out for the right Basic credentials, and after the cut the token is rotated (expired).
   */
  function registryProxy(opts: { cut?: string; token?: boolean }) {
    const cert = makeServerCert(ca, "proxy", ["127.0.0.1"], ["localhost"]);
    const blobGets: { range: string | null; status: number; auth: string }[] = [];
    const tokens: string[] = [];
    let current = "";
    let cuts = 0;
    let port = 0;
    const upstreamAuth = `Basic ${Buffer.from(`${user.name}:${user.password}`).toString("base64")}`;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: { cert: cert.cert, key: cert.key },
      async fetch(req): Promise<Response> {
        const u = new URL(req.url);
        const auth = req.headers.get("authorization") ?? "";
        if (opts.token && u.pathname === "/token") {
          if (auth !== upstreamAuth) return new Response("{}", { status: 401 });
          current = `tok-${tokens.length + 1}-${crypto.randomUUID()}`;
          tokens.push(`${u.searchParams.get("service")} ${u.searchParams.get("scope")}`);
          return Response.json({ token: current, expires_in: 300 });
        }
        if (opts.token && (current === "" || auth !== `Bearer ${current}`)) {
          const realm = `https://127.0.0.1:${port}/token`;
          return new Response('{"errors":[{"code":"UNAUTHORIZED"}]}', {
            status: 401,
            headers: { "www-authenticate": `Bearer realm="${realm}",service="test-registry",scope="repository:${repo}:pull"` },
          });
        }
        const headers = new Headers(req.headers);
        headers.set("authorization", opts.token ? upstreamAuth : auth);
        const up = await fetch(`https://${registry.address}${u.pathname}${u.search}`, { method: req.method, headers, tls: { ca: ca.pem } } as RequestInit);
        const cutting = opts.cut !== undefined && u.pathname.endsWith(`/blobs/${opts.cut}`) && up.body !== null;
        // Passed through whole, so the answer keeps its Content-Length (distribution's mirror insists on one).
        if (!cutting || req.method !== "GET") return req.method === "GET" ? new Response(await up.arrayBuffer(), { status: up.status, headers: up.headers }) : up;
        if (up.body === null) return up;
        blobGets.push({ range: req.headers.get("range"), status: up.status, auth: auth.split(" ")[0] ?? "" });
        if (cuts++ > 0) return up;
        const reader = up.body.getReader();
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(c) {
            const { value, done } = await reader.read();
            if (done || sent >= 1 << 20) {
              void reader.cancel();
              if (opts.token) current = "expired";
              c.error(new Error("cut by the test proxy"));
              return;
            }
            sent += value.byteLength;
            c.enqueue(value);
          },
        });
        return new Response(body, { status: up.status, headers: up.headers });
      },
    });
    port = server.port ?? 0;
    return { address: `127.0.0.1:${port}`, blobGets, tokens, stop: () => server.stop(true) };
  }

  test("a layer cut halfway by a proxy is resumed with Range; the tree is the same", async () => {
    const big = img.layers[0]!;
    const proxy = registryProxy({ cut: big.digest });
    try {
      const root = target();
      const r = await installOciImage({
        http,
        reference: `oci://${proxy.address}/${repo}:${img.tag}`,
        root,
        log: silentLogger(),
        ociConfigs: { [proxy.address]: { username: user.name, password: user.password } },
        env: noWait,
      });
      expect(r.layers[0]!.resumes).toBe(1);
      expect(proxy.blobGets.map((g) => [g.range === null, g.status])).toEqual([
        [true, 200],
        [false, 206],
      ]);
      expect(proxy.blobGets[1]!.range).toMatch(/^bytes=[1-9]\d*-$/);
      expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
      expect(lstatSync(join(root, "data/pad.bin")).size).toBe(4 << 20);
    } finally {
      proxy.stop();
    }
  }, 60_000);

  test("token auth (Bearer): the token got with Basic credentials; expired during a cut layer, a fresh one, then resumed", async () => {
    const big = img.layers[0]!;
    const proxy = registryProxy({ cut: big.digest, token: true });
    try {
      const root = target();
      const cap = capturingLogger();
      const r = await installOciImage({
        http,
        reference: `oci://${proxy.address}/${repo}:${img.tag}`,
        root,
        log: cap.log,
        secrets: cap.secrets,
        ociConfigs: { [`https://${proxy.address}/`]: { username: user.name, password: user.password } },
        env: noWait,
      });
      expect(proxy.tokens).toEqual([`test-registry repository:${repo}:pull`, `test-registry repository:${repo}:pull`]);
      expect(r.layers[0]!.resumes).toBe(1);
      expect(proxy.blobGets.map((g) => [g.range === null, g.status, g.auth])).toEqual([
        [true, 200, "Bearer"],
        [false, 206, "Bearer"],
      ]);
      expect(cap.events("install.oci.auth").map((e) => [e.scheme, e.login])).toEqual([
        ["bearer", "oci_configs"],
        ["bearer", "oci_configs"],
      ]);
      expect(cap.lines.join("\n")).not.toContain(user.password);
      expect(cap.lines.join("\n")).not.toContain("tok-");
      expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
    } finally {
      proxy.stop();
    }
  }, 60_000);

  test("wrong credentials: exit 21 naming the registry; the password is in no line and no error", async () => {
    const wrong = "not-the-registry-pw-77e1";
    const cap = capturingLogger();
    const e = await installOciImage({
      http,
      reference: ref(),
      root: target(),
      log: cap.log,
      secrets: cap.secrets,
      ociConfigs: { [registry.address]: { username: user.name, password: wrong } },
      env: noWait,
    }).catch((x) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).exitCode).toBe(21);
    expect((e as AgentError).message).toBe(`manifest ${img.tag} of ${ref()}: ${registry.address} answered 401: the credentials for ${registry.address} (oci_configs) refused`);
    const basic = Buffer.from(`${user.name}:${wrong}`).toString("base64");
    for (const text of [...cap.lines, (e as Error).message, JSON.stringify((e as AgentError).details), String((e as Error).stack)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(basic);
    }
    const anon = await installOciImage({ http, reference: ref(), root: target(), log: silentLogger(), env: noWait }).catch((x) => x);
    expect((anon as AgentError).exitCode).toBe(21);
    expect((anon as AgentError).message).toContain(`anonymous access (no oci_configs entry for ${registry.address}) refused`);
  }, 60_000);

  test("metal-hammer image pull REF --to DIR --auth-file: the same tree; the password in no output", async () => {
    const root = target();
    const auth = join(work, "pull-auth.json");
    writeFileSync(auth, JSON.stringify({ [registry.address]: { username: user.name, password: user.password } }), { mode: 0o600 });
    const c = captureContext();
    const code = await runCli(
      ["image", "pull", ref(), "--to", root, "--auth-file", auth, "--cmdline", `METAL_BOOT_URL=https://[fd00::1]:8443/ METAL_CA=${join(work, "ca.pem")}`],
      c.ctx,
    );
    expect({
      code,
      err: c
        .err()
        .split("\n")
        .filter((l) => l.includes('"level":5') || l.includes('"level":6')),
    }).toEqual({ code: 0, err: [] });
    expect(c.out()).toStartWith(`${ref()}: ${pushed.amd64} from ${registry.address}, 3 layer(s), `);
    expect(c.out()).toContain("every sha256 verified; 0 resume(s) by Range, 5 path(s) whited out");
    expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
    expect(c.out() + c.err()).not.toContain(user.password);
  }, 60_000);

  test("a pull-through mirror (docker-registry in proxy mode) is asked first; its bad layer is fetched again from the registry; a mirror down falls back in one line", async () => {
    // distribution's proxy mode authenticates upstream by the token flow only: the token proxy is its upstream.
    const upstream = registryProxy({ token: true });
    const mirror = await startOciRegistry(join(work, "mirror"), ca, user, { proxy: `https://${upstream.address}` });
    const reference = `oci://${upstream.address}/${repo}:${img.tag}`;
    const mirrorUrl = new URL(`https://${mirror.address}/`);
    const viaMirror = (log: Logger) =>
      installOciImage({
        http,
        reference,
        root: target(),
        log,
        ociConfigs: { [upstream.address]: { username: user.name, password: user.password } },
        mirror: mirrorUrl,
        env: noWait,
      });
    try {
      const root = target();
      const cap = capturingLogger();
      const r = await installOciImage({ http, reference, root, log: cap.log, ociConfigs: configs(), mirror: mirrorUrl, env: noWait });
      expect(cap.events("install.oci.mirror")).toEqual([]);
      expect(r.source).toBe(mirror.address);
      expect(r.manifest).toBe(pushed.amd64!);
      expect(readdirSync(join(root, "opt/app"))).toEqual(["c"]);
      // The mirror pulled through with its own credentials; the agent sent none to it.
      expect(cap.events("install.oci.auth")).toEqual([]);

      // The mirror's cached copy of layer 1 goes bad: the second pass comes from the registry.
      corruptBlob(join(work, "mirror/storage"), img.layers[0]!.digest);
      const again = capturingLogger();
      const r2 = await viaMirror(again.log);
      expect([r2.passes, r2.source]).toEqual([2, upstream.address]);
      expect(again.events("install.oci.retry").map((e) => e.layer)).toEqual([img.layers[0]!.digest]);
    } finally {
      await mirror.stop();
    }
    try {
      const cap = capturingLogger();
      const r = await viaMirror(cap.log);
      expect(r.source).toBe(upstream.address);
      expect(cap.events("install.oci.mirror").map((e) => [e.mirror, e.code])).toEqual([[mirror.address, "unreachable"]]);
    } finally {
      upstream.stop();
    }
  }, 90_000);

  // Last: it corrupts the registry's copy of layer 1.
  test("a corrupted blob: the target cleaned, fetched once more, then exit 51 naming the layer", async () => {
    const big = img.layers[0]!;
    corruptBlob(registry.storage, big.digest);
    const cap = capturingLogger();
    const e = await installOciImage({ http, reference: ref(), root: target(), log: cap.log, ociConfigs: configs(), env: noWait }).catch((x) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).exitCode).toBe(51);
    expect((e as AgentError).message).toContain(`layer 1/3 ${big.digest}: its bytes hash to sha256:`);
    expect((e as AgentError).message).toContain("also after one retry from scratch");
    expect(cap.events("install.oci.retry").map((x) => x.layer)).toEqual([big.digest]);
  }, 60_000);
});
