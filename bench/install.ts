/**
 * Image install throughput and peak memory, side by side, on the same image and the
 * same target filesystem (not asserted; run as root):
 *   bun bench/install.ts [--pad-mib 256] [--runs 3] [--target DIR] [--proto http|https|both]
 * - metal-hammer (this agent): installImage: one download, hash inline, tar -I lz4 inline,
 *   from TypeScript source (the way the numbers were first taken) and as the compiled binary
 *   the initramfs runs (`dist/metal-hammer image install`, `make build`).
 * - pipeline: `curl -s URL | lz4 -d | tar -x` (the floor: no hashing, no retries).
 * - the same pipeline verifying as the agent does: `curl | tee >(sha256sum) | lz4 -d | tar -x`
 *   (bash; Debian's sha256sum, the sidecar the agent picks).
 * --proto both (default): the three ways over plain http, then over https (the image
 * cache may be either: a CA made for the run, trusted by the agent and by curl).
 * - download-then-unpack (metal-hammer today, cmd/image/image.go): curl to a file on a
 *   tmpfs (the initramfs' /tmp is RAM), md5sum it, then lz4 -d | tar -x from the file.
 * CPU = user + system time of the way's whole process tree (the children's times the bench
 * collects when it reaps them, /proc/self/stat cutime + cstime); the image server's own is not in it.
 * Peak memory = the largest sum of VmRSS over the process tree (sampled every 20 ms),
 * plus, for download-then-unpack, the image file held in tmpfs.
 * The image cache stand-in runs in its own process (lab/images/server.ts).
 * Over https also the OCI way (docs/install.md "OCI images"): installOciImage from Debian's
 * docker-registry on loopback (TLS, htpasswd; lab/standins/oci-registry.ts), the same tree
 * plus three small layers, its big layer gzip (as most registries' images) or zstd.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildTestImage } from "../lab/images/build.ts";
import { buildOciTestImage } from "../lab/images/oci-image.ts";
import { startOciRegistry, type OciRegistry } from "../lab/standins/oci-registry.ts";
import { makeCa, makeServerCert } from "../lab/standins/pki.ts";

const { values: v } = parseArgs({
  options: {
    "pad-mib": { type: "string", default: "256" },
    runs: { type: "string", default: "3" },
    target: { type: "string" },
    proto: { type: "string", default: "both" },
    "run-ours": { type: "string" },
    url: { type: "string" },
    ca: { type: "string" },
    "run-oci": { type: "string" },
    ref: { type: "string" },
    auth: { type: "string" },
  },
});

if (v["run-oci"]) {
  // Child mode: one OCI install with the agent's code, into --run-oci DIR.
  const { HttpClient } = await import("../src/clients/http/http-client.ts");
  const { installOciImage } = await import("../src/install/oci/pull.ts");
  const { silentLogger } = await import("../src/platform/log/logger.ts");
  const http = new HttpClient({ caBundle: v.ca!, allowHttp: false, log: silentLogger() });
  const r = await installOciImage({ http, reference: v.ref!, root: v["run-oci"], log: silentLogger(), ociConfigs: JSON.parse(readFileSync(v.auth!, "utf8")) });
  await http.close();
  process.stdout.write(JSON.stringify(r) + "\n");
  process.exit(0);
}

if (v["run-ours"]) {
  // Child mode: one install with the agent's code, into --run-ours DIR.
  const { HttpClient } = await import("../src/clients/http/http-client.ts");
  const { installImage } = await import("../src/install/image.ts");
  const { silentLogger } = await import("../src/platform/log/logger.ts");
  const http = new HttpClient({ caBundle: v.ca ?? "/nonexistent", allowHttp: !v.ca, log: silentLogger() });
  const r = await installImage({ http, url: new URL(v.url!), root: v["run-ours"], log: silentLogger() });
  await http.close();
  process.stdout.write(JSON.stringify(r) + "\n");
  process.exit(0);
}

function treeRssKiB(pid: number): number {
  let sum = 0;
  const walk = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      sum += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim();
        for (const k of kids ? kids.split(" ") : []) walk(Number(k));
      }
    } catch {
      // exited meanwhile
    }
  };
  walk(pid);
  return sum;
}

/** User + system seconds of the children this process has reaped (clock ticks of 10 ms). */
function childrenCpuS(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) / 100;
}

interface Measured {
  ms: number;
  peakKiB: number;
  cpuS: number;
}

async function measure(argv: string[]): Promise<Measured & { out: string }> {
  const cpu0 = childrenCpuS();
  const t0 = performance.now();
  const p = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  p.stdout!.on("data", (d) => (out += String(d)));
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRssKiB(p.pid!))), 20);
  const code = await new Promise<number | null>((r) => p.on("close", r));
  clearInterval(timer);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}`);
  return { ms: performance.now() - t0, peakKiB: peak, cpuS: childrenCpuS() - cpu0, out };
}

const BINARY = join(import.meta.dir, "../dist/metal-hammer");
if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run make build first (the bench runs the compiled agent too)`);

const protos = v.proto === "both" ? ["http", "https"] : [v.proto as string];
if (!protos.every((p) => p === "http" || p === "https")) throw new Error(`--proto ${v.proto}: expected http, https or both`);
const work = mkdtempSync(join(tmpdir(), "mh-bench-install-"));
const targetBase = v.target ?? join(work, "target");
const ram = join(work, "ram");
const ca = makeCa(join(work, "pki"), "bench-ca");
const cert = makeServerCert(ca, "image-cache", ["127.0.0.1"], []);
writeFileSync(join(work, "pki/cert.pem"), cert.cert);
writeFileSync(join(work, "pki/key.pem"), cert.key);
const servers = protos.map((p) =>
  spawn(
    process.execPath,
    [join(import.meta.dir, "../lab/images/server.ts"), join(work, "cache"), ...(p === "https" ? [join(work, "pki/cert.pem"), join(work, "pki/key.pem")] : [])],
    { stdio: ["ignore", "pipe", "inherit"] },
  ),
);
let registry: OciRegistry | undefined;
try {
  const img = buildTestImage(join(work, "cache/bench"), { padMib: Number(v["pad-mib"]) });
  const ociUser = { name: "bench", password: `bench-${Math.random().toString(36).slice(2)}` };
  const ociAuth = join(work, "oci-auth.json");
  const ociRef: Record<string, string> = {};
  if (protos.includes("https")) {
    registry = await startOciRegistry(join(work, "registry"), ca, ociUser);
    writeFileSync(ociAuth, JSON.stringify({ [registry.address]: { username: ociUser.name, password: ociUser.password } }), { mode: 0o600 });
    for (const c of ["gzip", "zstd"] as const) {
      const o = buildOciTestImage(join(work, `oci-${c}`), { padMib: Number(v["pad-mib"]), layer1: c });
      registry.push(o.layout, o.tag, `bench/${c}`);
      ociRef[c] = `oci://${registry.address}/bench/${c}:${o.tag}`;
      const sizes = o.layers.map((l) => l.size);
      console.log(`oci image (${c}): ${(sizes.reduce((a, b) => a + b, 0) / 2 ** 20).toFixed(1)} MiB in ${sizes.length} layers`);
    }
  }
  mkdirSync(ram, { recursive: true });
  spawnSync("mount", ["-t", "tmpfs", "-o", `size=${Number(v["pad-mib"]) * 2 + 64}m`, "mh-bench-ram", ram]);
  const fresh = () => {
    rmSync(targetBase, { recursive: true, force: true });
    mkdirSync(targetBase, { recursive: true });
    spawnSync("sync");
    return targetBase;
  };
  console.log(`image: ${(img.bytes / 2 ** 20).toFixed(1)} MiB (img.tar.lz4, ${v["pad-mib"]} MiB of random padding), target ${targetBase}, ${v.runs} run(s) each, median`);
  for (const [i, proto] of protos.entries()) {
    const server = servers[i]!;
    const port = await new Promise<string>((resolve) => server.stdout!.on("data", (d) => /PORT (\d+)/.test(String(d)) && resolve(/PORT (\d+)/.exec(String(d))![1]!)));
    const url = `${proto}://127.0.0.1:${port}/bench/img.tar.lz4`;
    const tlsArgs = proto === "https" ? ["--ca", ca.certFile] : [];
    const curl = proto === "https" ? `curl -sf --cacert "${ca.certFile}"` : "curl -sf";
    // The cmdline the command reads its config from (a machine's carries METAL_BOOT_URL; the bench names none it uses).
    const cmdline = `METAL_BOOT_URL=https://[::1]:1/ METAL_LOG_LEVEL=warn ${proto === "https" ? `METAL_CA=${ca.certFile}` : "METAL_ALLOW_HTTP=1"}`;
    const ways: Record<string, () => Promise<Measured>> = {
      "metal-hammer (stream)": () => measure([process.execPath, import.meta.path, "--run-ours", fresh(), "--url", url, ...tlsArgs]),
      "metal-hammer (compiled)": () => measure([BINARY, "image", "install", url, "--target", fresh(), "--cmdline", cmdline, "--json"]),
      "curl | lz4 -d | tar -x": () => measure(["sh", "-c", `${curl} "${url}" | lz4 -d | tar -x -C "${fresh()}" --numeric-owner --xattrs --xattrs-include='*'`]),
      "the same, sha256 (tee)": () =>
        measure(["bash", "-c", `set -o pipefail; ${curl} "${url}" | tee >(sha256sum >/dev/null) | lz4 -d | tar -x -C "${fresh()}" --numeric-owner --xattrs --xattrs-include='*'`]),
      "download, md5, unpack": async () => {
        const t = fresh();
        const r = await measure([
          "sh",
          "-c",
          `${curl} -o "${ram}/img" "${url}" && md5sum "${ram}/img" >/dev/null && lz4 -d < "${ram}/img" | tar -x -C "${t}" --numeric-owner --xattrs --xattrs-include='*'; rc=$?; rm -f "${ram}/img"; exit $rc`,
        ]);
        // The image file lived in RAM (tmpfs) for the whole unpack.
        return { ms: r.ms, peakKiB: r.peakKiB + Math.ceil(img.bytes / 1024), cpuS: r.cpuS };
      },
      ...(proto === "https" && registry
        ? Object.fromEntries(
            Object.entries(ociRef).map(([c, ref]) => [
              `metal-hammer (oci, ${c})`,
              () => measure([process.execPath, import.meta.path, "--run-oci", fresh(), "--ref", ref, "--ca", ca.certFile, "--auth", ociAuth]),
            ]),
          )
        : {}),
    };
    console.log(`over ${proto}:`);
    // Side by side: each round runs every way once, so load from elsewhere hits all alike.
    const results: Record<string, Measured[]> = {};
    for (let r = 0; r < Number(v.runs); r++) for (const [name, fn] of Object.entries(ways)) (results[name] ??= []).push(await fn());
    const curlMs = median(results["curl | lz4 -d | tar -x"]!.map((r) => r.ms));
    for (const [name, rs] of Object.entries(results)) {
      const ms = median(rs.map((r) => r.ms));
      const peak = Math.max(...rs.map((r) => r.peakKiB));
      const cpu = median(rs.map((r) => r.cpuS));
      console.log(
        `${name.padEnd(24)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${(img.bytes / 2 ** 20 / (ms / 1000)).toFixed(1).padStart(7)} MiB/s  peak ${(peak / 1024).toFixed(0).padStart(5)} MiB  ${(curlMs / ms).toFixed(2)}x the curl pipeline  cpu ${cpu.toFixed(2)} s  runs ${rs.map((r) => (r.ms / 1000).toFixed(2)).join(" / ")} s`,
      );
    }
  }
} finally {
  for (const s of servers) s.kill();
  await registry?.stop();
  spawnSync("umount", [ram]);
  rmSync(work, { recursive: true, force: true });
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
