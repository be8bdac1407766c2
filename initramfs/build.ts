#!/usr/bin/env bun
/**
 * Builds the metal-hammer initramfs: the agent as /init, exactly the shared
 * libraries its ELF headers ask for, busybox (debug shell) with applet links, the CA
 * bundle, and the kernel modules of initramfs/modules/<kernel>.list with their
 * dependencies. Writes <out> (compressed cpio newc), <out>.manifest (every entry)
 * and prints a size report. Same inputs, same bytes: see docs/initramfs.md.
 *
 *   bun initramfs/build.ts --agent dist/metal-hammer --kver 6.1.0-57-amd64 --compress lz4 [--level 9] [--tools initramfs/tools.list] --out build/initramfs/x.cpio.lz4
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { cpioChunks } from "../src/initramfs/cpio.ts";
import { COMPRESSORS, parseCompression, parseLevel } from "../src/initramfs/compress.ts";
import { readElfDeps } from "../src/initramfs/elf.ts";
import { appletLinks, composeImage, sizeByGroup, SKELETON, type ImageItem } from "../src/initramfs/layout.ts";
import { parseLdd, verifyClosure } from "../src/initramfs/ldd.ts";
import { parseModuleList, parseModulesBuiltin, parseModulesDep, planModuleLoad, renderModulesDep } from "../src/init/modules-dep.ts";
import { AGENT_PATH, initShim, MODULE_LIST_NAME } from "../src/init/paths.ts";
import { parseToolsList, toolItems } from "./tools.ts";

const { values: opt } = parseArgs({
  options: {
    agent: { type: "string", default: "dist/metal-hammer" },
    kver: { type: "string" },
    "modules-dir": { type: "string" },
    list: { type: "string" },
    busybox: { type: "string", default: "/bin/busybox" },
    ca: { type: "string", default: "/etc/ssl/certs/ca-certificates.crt" },
    compress: { type: "string", default: "lz4" },
    level: { type: "string" },
    out: { type: "string" },
    mtime: { type: "string" },
    tools: { type: "string" },
  },
  strict: true,
});

function fail(msg: string): never {
  process.stderr.write(`initramfs: ${msg}\n`);
  process.exit(2);
}

async function bytesOf(path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await Bun.file(path).arrayBuffer());
  } catch (e) {
    return fail(`cannot read ${path}: ${(e as Error).message}`);
  }
}

function run(argv: string[]): Uint8Array {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) fail(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout;
}

const sizeOf = (p: string): number => statSync(p).size;
const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const kver = opt.kver ?? fail("--kver is required (e.g. 6.1.0-57-amd64)");
  const compression = parseCompression(opt.compress as string);
  const level = parseLevel(compression, opt.level);
  const out = opt.out ?? fail("--out is required");
  const modDir = opt["modules-dir"] ?? `/lib/modules/${kver}`;
  const listPath = opt.list ?? `initramfs/modules/${kver}.list`;
  const mtime = Number(opt.mtime ?? process.env.SOURCE_DATE_EPOCH ?? 0);
  if (!Number.isInteger(mtime) || mtime < 0) fail(`mtime ${opt.mtime}: expected seconds since 1970`);
  const items: ImageItem[] = [...SKELETON];

  // The agent and exactly the libraries its ELF headers need (ldd resolves the paths).
  const agent = opt.agent as string;
  const agentDeps = readElfDeps(await bytesOf(agent));
  const libs = parseLdd(run(["ldd", agent]).toString());
  const elfCache = new Map<string, readonly string[]>();
  for (const l of libs) elfCache.set(l.path, readElfDeps(await bytesOf(l.path)).needed);
  verifyClosure(agentDeps, libs, (p) => elfCache.get(p) ?? []);
  items.push({ kind: "file", path: AGENT_PATH.slice(1), mode: 0o755, size: sizeOf(agent), source: { kind: "host", path: agent }, group: "agent" });
  const shim = new TextEncoder().encode(initShim());
  items.push({ kind: "file", path: "init", mode: 0o755, size: shim.length, source: { kind: "bytes", data: shim }, group: "agent" });
  for (const l of libs) items.push({ kind: "file", path: l.path, mode: 0o755, size: sizeOf(l.path), source: { kind: "host", path: l.path }, group: "libs" });

  // busybox must be static: it is the shell of last resort, even when the libraries are broken.
  const bb = opt.busybox as string;
  if (readElfDeps(await bytesOf(bb)).interpreter !== undefined) fail(`${bb} is dynamically linked; install busybox-static`);
  items.push({ kind: "file", path: "bin/busybox", mode: 0o755, size: sizeOf(bb), source: { kind: "host", path: bb }, group: "busybox" });

  const ca = opt.ca as string;
  items.push({ kind: "file", path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, size: sizeOf(ca), source: { kind: "host", path: ca }, group: "ca" });

  // Kernel modules: the list plus dependencies, decompressed (no CONFIG_MODULE_DECOMPRESS needed).
  const dep = parseModulesDep(new TextDecoder().decode(await bytesOf(`${modDir}/modules.dep`)));
  const builtin = parseModulesBuiltin(await Bun.file(`${modDir}/modules.builtin`).text().catch(() => ""));
  const wanted = parseModuleList(await Bun.file(listPath).text().catch(() => fail(`cannot read the module list ${listPath}`)));
  const plan = planModuleLoad(dep, wanted, builtin);
  for (const m of plan.load) {
    const src = `${modDir}/${m.path}`;
    const data = m.path.endsWith(".xz") ? run(["xz", "-dc", src]) : m.path.endsWith(".zst") ? run(["zstd", "-dcq", src]) : m.path.endsWith(".gz") ? run(["gzip", "-dc", src]) : undefined;
    const path = `lib/modules/${kver}/${m.path.replace(/\.ko\.(xz|zst|gz)$/, ".ko")}`;
    items.push(data ? { kind: "file", path, mode: 0o644, size: data.length, source: { kind: "bytes", data }, group: "modules" } : { kind: "file", path, mode: 0o644, size: sizeOf(src), source: { kind: "host", path: src }, group: "modules" });
  }
  const text = (path: string, s: string): ImageItem => {
    const data = new TextEncoder().encode(s);
    return { kind: "file", path, mode: 0o644, size: data.length, source: { kind: "bytes", data }, group: "modules" };
  };
  items.push(text(`lib/modules/${kver}/modules.dep`, renderModulesDep(plan.load)));
  items.push(text(`lib/modules/${kver}/${MODULE_LIST_NAME}`, wanted.join("\n") + "\n"));

  // Tools from a list (make passes initramfs/tools.list: the disk stages' Debian tools), before busybox's applets of the same names.
  if (opt.tools) {
    const tools = parseToolsList(await Bun.file(opt.tools).text().catch(() => fail(`cannot read the tools list ${opt.tools}`)));
    items.push(...toolItems(tools, new Set(items.map((i) => i.path.replace(/^\/+/, ""))), (p) => run(["ldd", p]).toString()));
  }
  const taken = new Set(items.map((i) => i.path.replace(/^\/+/, "")));
  items.push(...appletLinks(run([bb, "--list-full"]).toString(), "/bin/busybox", taken));

  const image = composeImage(items);
  mkdirSync(dirname(out), { recursive: true });
  const raw = `${out}.cpio.tmp`;
  const writer = Bun.file(raw).writer();
  const chunks = cpioChunks(image.entries, mtime, (e) => {
    const s = image.sources.get(e.path);
    if (!s) throw new Error(`no source for ${e.path}`);
    if (s.kind === "bytes") return s.data;
    return readFileSync(s.path);
  });
  for (const c of chunks) writer.write(c);
  await writer.end();
  const rawSize = sizeOf(raw);

  const comp = COMPRESSORS[compression];
  const proc = Bun.spawn(comp.argv(raw, level), { stdout: Bun.file(`${out}.tmp`), stderr: "pipe" });
  if ((await proc.exited) !== 0) fail(`${comp.argv(raw, level).join(" ")} failed: ${await new Response(proc.stderr).text()}`);
  rmSync(raw);
  renameSync(`${out}.tmp`, out);

  const sha = createHash("sha256").update(await bytesOf(out)).digest("hex");
  const manifest = image.entries
    .map((e) => {
      const kind = e.kind === "symlink" ? `l 0777 ${e.path} -> ${e.target}` : e.kind === "file" ? `f ${e.mode.toString(8).padStart(4, "0")} ${e.path} ${e.size}` : e.kind === "dir" ? `d ${e.mode.toString(8).padStart(4, "0")} ${e.path}` : `c ${e.mode.toString(8).padStart(4, "0")} ${e.path} ${e.major}:${e.minor}`;
      return `${kind}  [${image.groups.get(e.path)}]`;
    })
    .join("\n");
  await Bun.write(`${out}.manifest`, `# ${out}\n# sha256 ${sha}\n# kernel ${kver}, compression ${compression} level ${level}, mtime ${mtime}\n# modules (load order): ${plan.load.map((m) => m.name).join(" ")}\n${manifest}\n`);

  const groups = sizeByGroup(items);
  const lines = [
    `initramfs ${out}`,
    ...[...groups.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([g, n]) => `  ${g.padEnd(10)} ${mib(n).padStart(10)}`),
    `  ${"cpio".padEnd(10)} ${mib(rawSize).padStart(10)}  (${image.entries.length} entries)`,
    `  ${compression.padEnd(10)} ${mib(sizeOf(out)).padStart(10)}  sha256 ${sha.slice(0, 16)} (level ${level})`,
    `  modules    ${plan.load.map((m) => m.name).join(" ")}${plan.builtin.length ? ` (built in: ${plan.builtin.join(" ")})` : ""}`,
    `  libs       ${libs.map((l) => l.path).join(" ")}`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
}

try {
  await main();
} catch (e) {
  // Parser and layout errors (CpioError, LddError, ElfError, ModuleError) name the input and what was expected.
  fail((e as Error).message);
}
