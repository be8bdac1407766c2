#!/usr/bin/env bun
/**
 * Builds the metal-hammer initramfs: the agent (behind the /init shim), exactly the
 * shared libraries its ELF headers ask for, busybox (debug shell) with applet links,
 * the CA bundle, the kernel modules for real servers with their dependencies and the
 * firmware they name, and optional host tools (`--tools FILE`) with their libraries.
 * Writes <out> (compressed cpio newc), <out>.manifest (every entry) and prints a size
 * report. Same inputs, same bytes: see docs/initramfs.md.
 *
 * The module set: every module named by a `# module:` line of the kernel config
 * fragment (kernel-config/metal-hammer.config, so `kconfig check --modules` passes by
 * construction), plus the boot list (initramfs/modules/boot.list: what PID 1 loads
 * without a device) and any `--list` files, each with its modules.dep closure. PID 1
 * loads drivers by the devices' modaliases (src/init/coldplug.ts), so the image also
 * carries modules.alias, modules.softdep and modules.firmware for exactly these modules.
 *
 *   bun initramfs/build.ts --agent dist/metal-hammer --kver 6.1.0-57-amd64 --compress xz [--level 9] --out build/initramfs/x.cpio.xz
 *     [--firmware-dir build/firmware/lib/firmware] [--tools initramfs/tools.list] [--list extra.list] [--kernel-config /boot/config-<KVER>]
 *     [--pci-ids /usr/share/misc/pci.ids]
 *
 * PCI names (--pci-ids, Debian's pci.ids) go in at /usr/share/metal-hammer/pci.ids, only
 * for the devices the kernel's display and network drivers bind (lib/pci-subset.ts).
 *
 * The carried os-installer (--os-installer PATH --os-installer-version V [--os-installer-name
 * N]) goes in at /usr/lib/metal-hammer/os-installer with its facts (name, version, sha256,
 * size, kind) as JSON beside it and in the manifest's header: the agent runs it when
 * the image has no installer (src/install/carried-installer.ts, lib/carried-installer.ts).
 *
 * The kernel's config (--kernel-config, default /boot/config-<KVER>) goes in at
 * /boot/config-<KVER>: PID 1 checks the running kernel against the fragment with it
 * when the kernel has no /proc/config.gz (src/init/kernel-facts.ts).
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { cpioChunks } from "./lib/cpio.ts";
import { COMPRESSORS, DEFAULT_COMPRESSION, parseCompression, parseLevel, type Compression } from "./lib/compress.ts";
import { readElfDeps } from "./lib/elf.ts";
import { appletLinks, composeImage, sizeByGroup, SKELETON, type ImageItem } from "./lib/layout.ts";
import { parseLdd, verifyClosure, type SharedLib } from "./lib/ldd.ts";
import { carriedInstallerInfo } from "./lib/carried-installer.ts";
import { CARRIED_INSTALLER_INFO_PATH, CARRIED_INSTALLER_PATH, describeCarried, type CarriedInstallerInfo } from "../src/install/carried-installer.ts";
import { parseToolList } from "./lib/tools.ts";
import { displayAndNetworkDevices, keeps } from "./lib/pci-subset.ts";
import { parsePciIds, PCI_IDS_PATH, renderPciIds } from "../src/machine/inventory/pci-ids.ts";
import { parseFragment } from "../src/kernel/kconfig/fragment.ts";
import { parseModulesAlias, renderModulesAlias } from "../src/kernel/kmod/alias.ts";
import { parseModulesBuiltin, parseModulesDep, planModuleLoad, renderModulesDep } from "../src/kernel/kmod/dep.ts";
import { parseModinfoFirmware, renderModulesFirmware } from "../src/kernel/kmod/firmware.ts";
import { parseModuleList, plainModulePath } from "../src/kernel/kmod/names.ts";
import { parseModulesSoftdep, renderModulesSoftdep, resolveSoftdeps } from "../src/kernel/kmod/softdep.ts";
import { AGENT_PATH, imageKernelConfig, initShim, MODULE_ALIAS_NAME, MODULE_FIRMWARE_NAME, MODULE_LIST_NAME, MODULE_SOFTDEP_NAME } from "../src/init/paths.ts";

const { values: opt } = parseArgs({
  options: {
    agent: { type: "string", default: "dist/metal-hammer" },
    kver: { type: "string" },
    "modules-dir": { type: "string" },
    "kernel-config": { type: "string" },
    fragment: { type: "string", default: "kernel-config/metal-hammer.config" },
    "pci-ids": { type: "string", default: "/usr/share/misc/pci.ids" },
    "boot-list": { type: "string", default: "initramfs/modules/boot.list" },
    list: { type: "string", multiple: true, default: [] },
    "firmware-dir": { type: "string" },
    tools: { type: "string" },
    busybox: { type: "string", default: "/bin/busybox" },
    ca: { type: "string", default: "/etc/ssl/certs/ca-certificates.crt" },
    compress: { type: "string", default: DEFAULT_COMPRESSION },
    level: { type: "string" },
    out: { type: "string" },
    mtime: { type: "string" },
    "os-installer": { type: "string" },
    "os-installer-version": { type: "string" },
    "os-installer-name": { type: "string", default: "os-installer" },
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

function hostFile(path: string, src: string, mode: number, group: string): ImageItem {
  if (!existsSync(src)) fail(`${src} does not exist`);
  return { kind: "file", path, mode, size: sizeOf(src), source: { kind: "host", path: src }, group };
}

function bytesItem(path: string, data: Uint8Array, group: string): ImageItem {
  return { kind: "file", path, mode: 0o644, size: data.length, source: { kind: "bytes", data }, group };
}

/**
 * The shared libraries `binary` loads, as ldd resolves them, verified against the ELF
 * headers (a missing or extra library fails the build); ones already in `seen` are not
 * added twice. A static binary needs none.
 */
async function libItems(binary: string, seen: Map<string, SharedLib>, group: string): Promise<ImageItem[]> {
  const deps = readElfDeps(await bytesOf(binary));
  if (deps.interpreter === undefined && deps.needed.length === 0) return [];
  const libs = parseLdd(run(["ldd", binary]).toString());
  const needed = new Map<string, readonly string[]>();
  for (const l of libs) needed.set(l.path, readElfDeps(await bytesOf(l.path)).needed);
  try {
    verifyClosure(deps, libs, (p) => needed.get(p) ?? []);
  } catch (e) {
    fail(`${binary}: ${(e as Error).message}`);
  }
  const out: ImageItem[] = [];
  for (const l of libs) {
    if (seen.has(l.path)) continue;
    seen.set(l.path, l);
    out.push(hostFile(l.path.slice(1), l.path, 0o755, group));
  }
  return out;
}

interface ModuleItems {
  readonly items: ImageItem[];
  readonly load: string[];
  readonly builtin: readonly string[];
  readonly firmware: string[];
  readonly missingFirmware: string[];
}

const readText = (p: string, what: string): Promise<string> =>
  Bun.file(p)
    .text()
    .catch(() => fail(`cannot read the ${what} ${p}`));
/** An optional file of the modules directory (modules.builtin, modules.softdep): empty when absent. */
const readOptional = (p: string): Promise<string> =>
  Bun.file(p)
    .text()
    .catch(() => "");

/** The modules asked for: the kernel config fragment's, the boot list (also what PID 1 loads at boot) and the --list files. */
async function wantedModules(): Promise<{ wanted: string[]; boot: string[] }> {
  const fragmentPath = opt.fragment as string;
  const fromFragment = parseFragment(await readText(fragmentPath, "kernel config fragment"), fragmentPath).entries.flatMap((e) => e.modules);
  const bootPath = opt["boot-list"] as string;
  const boot = parseModuleList(await readText(bootPath, "boot module list"), bootPath);
  const extra: string[] = [];
  for (const l of opt.list as string[]) extra.push(...parseModuleList(await readText(l, "module list"), l));
  return { wanted: [...new Set([...fromFragment, ...boot, ...extra])], boot };
}

/** The kernel's module tables (modules.dep, .builtin, .alias, .softdep with its aliases resolved). */
async function moduleTables(modDir: string) {
  const dep = parseModulesDep(await readText(`${modDir}/modules.dep`, "modules.dep"));
  const builtin = parseModulesBuiltin(await readOptional(`${modDir}/modules.builtin`));
  const aliases = parseModulesAlias(await readText(`${modDir}/modules.alias`, "modules.alias"), `${modDir}/modules.alias`);
  const soft = resolveSoftdeps(parseModulesSoftdep(await readOptional(`${modDir}/modules.softdep`), `${modDir}/modules.softdep`), aliases, new Set(dep.keys()));
  return { dep, builtin, aliases, soft };
}

type ModuleTables = Awaited<ReturnType<typeof moduleTables>>;

/** The load plan with pre-softdeps (ext4 -> a crc32c implementation) shipped too, until no module adds another. */
function planWithSoftdeps(t: ModuleTables, asked: readonly string[]): ReturnType<typeof planModuleLoad> {
  const wanted = [...asked];
  let plan = planModuleLoad(t.dep, wanted, t.builtin);
  for (;;) {
    const have = new Set(plan.load.map((m) => m.name));
    const more = [...new Set([...have].flatMap((n) => t.soft.get(n) ?? []))].filter((n) => !have.has(n) && !t.builtin.has(n));
    if (more.length === 0) return plan;
    wanted.push(...more);
    plan = planModuleLoad(t.dep, wanted, t.builtin);
  }
}

/** A module file as the image holds it: decompressed (xz, zstd, gzip), or copied as it is. */
function moduleFile(kver: string, modDir: string, modPath: string): ImageItem {
  const src = `${modDir}/${modPath}`;
  const data = modPath.endsWith(".xz")
    ? run(["xz", "-dc", src])
    : modPath.endsWith(".zst")
      ? run(["zstd", "-dcq", src])
      : modPath.endsWith(".gz")
        ? run(["gzip", "-dc", src])
        : undefined;
  const path = `lib/modules/${kver}/${plainModulePath(modPath)}`;
  return data ? bytesItem(path, data, "modules") : hostFile(path, src, 0o644, "modules");
}

async function moduleItems(kver: string, modDir: string): Promise<ModuleItems> {
  const { wanted, boot } = await wantedModules();
  const t = await moduleTables(modDir);
  const plan = planWithSoftdeps(t, wanted);
  const items: ImageItem[] = [];
  const fwByModule = new Map<string, string[]>();
  const fwDir = opt["firmware-dir"];
  const firmware = new Set<string>();
  const missing = new Set<string>();
  for (const m of plan.load) {
    items.push(moduleFile(kver, modDir, m.path));
    const fw = parseModinfoFirmware(run(["modinfo", "-F", "firmware", `${modDir}/${m.path}`]).toString());
    if (fw.length > 0) fwByModule.set(m.name, fw);
    for (const f of fw) {
      const host = fwDir ? `${fwDir}/${f}` : undefined;
      if (host && existsSync(host)) firmware.add(f);
      else missing.add(f);
    }
  }
  // Firmware from Debian's packages (mk/initramfs.mk unpacks them); a symlink (ice.pkg -> ice-1.3.30.0.pkg) is stored as the file it names.
  for (const f of [...firmware].sort()) items.push({ ...hostFile(`lib/firmware/${f}`, realpathSync(`${fwDir}/${f}`), 0o644, "firmware") });
  const names = new Set(plan.load.map((m) => m.name));
  const dir = `lib/modules/${kver}`;
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  items.push(bytesItem(`${dir}/modules.dep`, enc(renderModulesDep(plan.load)), "modules"));
  items.push(bytesItem(`${dir}/${MODULE_ALIAS_NAME}`, enc(renderModulesAlias(t.aliases, names)), "modules"));
  items.push(bytesItem(`${dir}/${MODULE_FIRMWARE_NAME}`, enc(renderModulesFirmware(fwByModule)), "modules"));
  items.push(bytesItem(`${dir}/${MODULE_SOFTDEP_NAME}`, enc(renderModulesSoftdep(t.soft, names)), "modules"));
  items.push(bytesItem(`${dir}/${MODULE_LIST_NAME}`, enc(boot.join("\n") + "\n"), "modules"));
  return { items, load: plan.load.map((m) => m.name), builtin: plan.builtin, firmware: [...firmware].sort(), missingFirmware: [...missing].sort() };
}

/** What the build reads from its options: the kernel, where the image goes, how it is compressed, the files' mtime. */
interface Build {
  readonly kver: string;
  readonly out: string;
  readonly modDir: string;
  readonly compression: Compression;
  readonly level: number;
  readonly mtime: number;
}

function buildOptions(): Build {
  const kver = opt.kver ?? fail("--kver is required (e.g. 6.1.0-57-amd64)");
  const compression = parseCompression(opt.compress as string);
  const level = parseLevel(compression, opt.level);
  const out = opt.out ?? fail("--out is required");
  const mtime = Number(opt.mtime ?? process.env.SOURCE_DATE_EPOCH ?? 0);
  if (!Number.isInteger(mtime) || mtime < 0) fail(`mtime ${opt.mtime}: expected seconds since 1970`);
  return { kver, out, modDir: opt["modules-dir"] ?? `/lib/modules/${kver}`, compression, level, mtime };
}

/** The agent as AGENT_PATH, the /init shim that execs it, and the libraries it loads. */
async function agentItems(seenLibs: Map<string, SharedLib>): Promise<ImageItem[]> {
  const agent = opt.agent as string;
  const shim = new TextEncoder().encode(initShim());
  return [
    hostFile(AGENT_PATH.slice(1), agent, 0o755, "agent"),
    { kind: "file", path: "init", mode: 0o755, size: shim.length, source: { kind: "bytes", data: shim }, group: "agent" },
    ...(await libItems(agent, seenLibs, "libs")),
  ];
}

/** busybox must be static: it is the shell of last resort, even when the libraries are broken. */
async function busyboxItem(): Promise<ImageItem> {
  const bb = opt.busybox as string;
  if (readElfDeps(await bytesOf(bb)).interpreter !== undefined) fail(`${bb} is dynamically linked; install busybox-static`);
  return hostFile("bin/busybox", bb, 0o755, "busybox");
}

/** Host tools (--tools): each at its own path, with the libraries it loads; the tool list as read. */
async function toolItems(seenLibs: Map<string, SharedLib>): Promise<{ items: ImageItem[]; tools: readonly string[] }> {
  const tools = opt.tools
    ? parseToolList(
        await Bun.file(opt.tools)
          .text()
          .catch(() => fail(`cannot read the tool list ${opt.tools}`)),
        opt.tools,
      )
    : [];
  const items: ImageItem[] = [];
  for (const t of tools) {
    const st = lstatSync(t, { throwIfNoEntry: false }) ?? fail(`${opt.tools}: ${t} does not exist on the build host (install its Debian package: make deps)`);
    // A symlink stays a symlink (mkfs.ext4 -> mke2fs: its target is listed too); a file that is not ELF (mke2fs.conf) is copied as it is.
    if (st.isSymbolicLink()) {
      items.push({ kind: "symlink", path: t.slice(1), target: readlinkSync(t), group: "tools" });
      continue;
    }
    items.push(hostFile(t.slice(1), t, st.mode & 0o777, "tools"));
    const head = (await bytesOf(t)).subarray(0, 4);
    if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) items.push(...(await libItems(t, seenLibs, "tools")));
  }
  return { items, tools };
}

/** The carried os-installer (--os-installer) and its facts beside it; none without the option. */
async function carriedItems(): Promise<{ items: ImageItem[]; info: CarriedInstallerInfo | undefined }> {
  const path = opt["os-installer"];
  if (!path) return { items: [], info: undefined };
  const version = opt["os-installer-version"] ?? fail(`--os-installer ${path} needs --os-installer-version (make: OS_INSTALLER_VERSION=vX.Y.Z)`);
  const bytes = await bytesOf(path);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const info = carriedInstallerInfo(bytes, path, opt["os-installer-name"] as string, version, sha256);
  return {
    items: [
      { kind: "file", path: CARRIED_INSTALLER_PATH.slice(1), mode: 0o755, size: bytes.length, source: { kind: "bytes", data: bytes }, group: "installer" },
      bytesItem(CARRIED_INSTALLER_INFO_PATH.slice(1), new TextEncoder().encode(`${JSON.stringify(info)}\n`), "installer"),
    ],
    info,
  };
}

/** The config of the kernel the modules are for: PID 1's boot-time check reads it when the kernel has no /proc/config.gz. */
function kernelConfigItem(kver: string): ImageItem {
  const kconfig = opt["kernel-config"] ?? `/boot/config-${kver}`;
  if (!existsSync(kconfig)) fail(`the kernel config ${kconfig} does not exist: the agent checks the running kernel against it at boot; pass --kernel-config FILE`);
  return hostFile(imageKernelConfig(kver).slice(1), kconfig, 0o644, "kconfig");
}

/**
 * PCI names for the inventory (GPU and NIC vendor/model as operators write them): only the devices the
 * kernel's display and network drivers bind (initramfs/lib/pci-subset.ts), from Debian's pci.ids.
 */
async function pciIdsItem(modDir: string): Promise<ImageItem> {
  const pciIdsPath = opt["pci-ids"] as string;
  const pciIds = parsePciIds(
    await Bun.file(pciIdsPath)
      .text()
      .catch(() => fail(`cannot read ${pciIdsPath} (Debian package pci.ids: make deps)`)),
    pciIdsPath,
  );
  const modPaths = new Map([...parseModulesDep(await Bun.file(`${modDir}/modules.dep`).text()).values()].map((m) => [m.name, m.path]));
  const keep = displayAndNetworkDevices(parseModulesAlias(await Bun.file(`${modDir}/modules.alias`).text(), `${modDir}/modules.alias`), modPaths);
  return bytesItem(PCI_IDS_PATH.slice(1), new TextEncoder().encode(renderPciIds(pciIds, keeps(keep))), "pci-ids");
}

type Image = ReturnType<typeof composeImage>;

/** The image as a cpio archive, compressed into `out` (through temporary files, renamed at the end); the cpio's size. */
async function writeImage(image: Image, b: Build): Promise<number> {
  mkdirSync(dirname(b.out), { recursive: true });
  const raw = `${b.out}.cpio.tmp`;
  const writer = Bun.file(raw).writer();
  const chunks = cpioChunks(image.entries, b.mtime, (e) => {
    const s = image.sources.get(e.path);
    if (!s) throw new Error(`no source for ${e.path}`);
    if (s.kind === "bytes") return s.data;
    return readFileSync(s.path);
  });
  for (const c of chunks) writer.write(c);
  await writer.end();
  const rawSize = sizeOf(raw);
  const comp = COMPRESSORS[b.compression];
  const proc = Bun.spawn(comp.argv(raw, b.level), { stdout: Bun.file(`${b.out}.tmp`), stderr: "pipe" });
  if ((await proc.exited) !== 0) fail(`${comp.argv(raw, b.level).join(" ")} failed: ${await new Response(proc.stderr).text()}`);
  rmSync(raw);
  renameSync(`${b.out}.tmp`, b.out);
  return rawSize;
}

/** One manifest line per entry: kind, mode, path, size or target, and the group it came from. */
function manifestLines(image: Image): string {
  return image.entries
    .map((e) => {
      const kind =
        e.kind === "symlink"
          ? `l 0777 ${e.path} -> ${e.target}`
          : e.kind === "file"
            ? `f ${e.mode.toString(8).padStart(4, "0")} ${e.path} ${e.size}`
            : e.kind === "dir"
              ? `d ${e.mode.toString(8).padStart(4, "0")} ${e.path}`
              : `c ${e.mode.toString(8).padStart(4, "0")} ${e.path} ${e.major}:${e.minor}`;
      return `${kind}  [${image.groups.get(e.path)}]`;
    })
    .join("\n");
}

/** `<out>.manifest`: the image's sha256, how it was built, the modules and missing firmware, then every entry; the sha256. */
async function writeManifest(image: Image, b: Build, mods: ModuleItems, carried: CarriedInstallerInfo | undefined): Promise<string> {
  const sha = createHash("sha256")
    .update(await bytesOf(b.out))
    .digest("hex");
  await Bun.write(
    `${b.out}.manifest`,
    `# ${b.out}\n# sha256 ${sha}\n# kernel ${b.kver}, compression ${b.compression} level ${b.level}, mtime ${b.mtime}\n# modules: ${mods.load.join(" ")}\n# firmware missing from the image: ${mods.missingFirmware.join(" ") || "none"}\n# os-installer: ${carried ? `${describeCarried(carried)} ${carried.kind}, sha256 ${carried.sha256}` : "none"}\n${manifestLines(image)}\n`,
  );
  return sha;
}

/** What the build printed: size per group, the cpio and the compressed image, modules, firmware, libraries, tools. */
function summary(o: {
  b: Build;
  items: readonly ImageItem[];
  image: Image;
  rawSize: number;
  sha: string;
  mods: ModuleItems;
  seenLibs: Map<string, SharedLib>;
  tools: readonly string[];
  carried: CarriedInstallerInfo | undefined;
}): string {
  const { b, mods } = o;
  const groups = sizeByGroup(o.items);
  return [
    `initramfs ${b.out}`,
    ...[...groups.entries()]
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1])
      .map(([g, n]) => `  ${g.padEnd(10)} ${mib(n).padStart(10)}`),
    `  ${"cpio".padEnd(10)} ${mib(o.rawSize).padStart(10)}  (${o.image.entries.length} entries)`,
    `  ${b.compression.padEnd(10)} ${mib(sizeOf(b.out)).padStart(10)}  sha256 ${o.sha.slice(0, 16)} (level ${b.level})`,
    `  modules    ${mods.load.length} (${mods.builtin.length} built in: ${mods.builtin.join(" ") || "none"})`,
    `  firmware   ${mods.firmware.join(" ") || "none"}${mods.missingFirmware.length ? `; missing: ${mods.missingFirmware.join(" ")}` : ""}`,
    `  libs       ${[...o.seenLibs.values()].map((l) => l.path).join(" ")}`,
    ...(o.tools.length ? [`  tools      ${o.tools.join(" ")}`] : []),
    `  installer  ${o.carried ? describeCarried(o.carried) : "none carried"}`,
  ].join("\n");
}

/** The image's items in order (the layout composes them), written, compressed, its manifest, the summary. */
async function main(): Promise<void> {
  const b = buildOptions();
  const seenLibs = new Map<string, SharedLib>();
  const items: ImageItem[] = [...SKELETON, ...(await agentItems(seenLibs))];
  items.push(await busyboxItem(), hostFile("etc/ssl/certs/ca-certificates.crt", opt.ca as string, 0o644, "ca"));
  const tools = await toolItems(seenLibs);
  items.push(...tools.items, kernelConfigItem(b.kver));
  const carried = await carriedItems();
  items.push(...carried.items);
  // Kernel modules: the fragment's, the boot list and --list files, with dependencies, decompressed.
  const mods = await moduleItems(b.kver, b.modDir);
  items.push(...mods.items, await pciIdsItem(b.modDir));
  const taken = new Set(items.map((i) => i.path.replace(/^\/+/, "")));
  items.push(...appletLinks(run([opt.busybox as string, "--list-full"]).toString(), "/bin/busybox", taken));

  const image = composeImage(items);
  const rawSize = await writeImage(image, b);
  const sha = await writeManifest(image, b, mods, carried.info);
  process.stdout.write(summary({ b, items, image, rawSize, sha, mods, seenLibs, tools: tools.tools, carried: carried.info }) + "\n");
}

try {
  await main();
} catch (e) {
  // Parser and layout errors (CpioError, LddError, ElfError, ModuleError) name the input and what was expected.
  fail((e as Error).message);
}
