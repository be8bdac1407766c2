/**
 * The real os-installer (metal-stack/os-installer v0.3.1, a static binary built elsewhere:
 * OS_INSTALLER=PATH) as a peer, carried as the initramfs carries it: an initramfs-like
 * root dir with usr/lib/metal-hammer/os-installer and its facts (os-installer.json, the
 * sha256 computed here). The agent's installOs streams the lab's Debian image
 * (`make debian-image`, no installer in it, as metal-images build theirs) onto a root and
 * an ESP that are loop devices of image files, writes the contract, copies the carried
 * os-installer in as /os-installer and runs it in a chroot, all in a private mount
 * namespace whose /dev holds only those two disks (os-installer-driver.ts). It proves the
 * installer parses our files and runs its tasks; the task list with times is printed
 * (docs/install.md has a run).
 * Not RAID here: with raidenabled os-installer scans every disk (blkid, mdadm) and writes
 * UEFI boot entries (efibootmgr): that runs in the QEMU lab, not on this machine.
 *
 *   make test-realos OS_INSTALLER=PATH [OS_INSTALLER_VERSION=v0.3.1]   (builds the image first)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startImageServer, type ImageServer } from "../../lab/images/server.ts";
import { carriedInstallerInfo } from "../../initramfs/lib/carried-installer.ts";
import { CARRIED_INSTALLER_INFO_PATH, CARRIED_INSTALLER_PATH, describeCarried, type CarriedInstallerInfo } from "../../src/install/carried-installer.ts";
import { parseOsInstallerLog } from "../../src/install/os-installer-log.ts";
import { REALOS_HOSTNAME } from "./allocation.ts";
import { OS_INSTALLER_TASKS } from "../fixtures/os-installer/tasks.ts";

const REPO = join(import.meta.dir, "../..");
const IMAGE_DIR = join(REPO, "build/debian");
/** make test-realos passes both (mk/realos.mk). */
const OS_INSTALLER = process.env.OS_INSTALLER ?? "";
const VERSION = process.env.OS_INSTALLER_VERSION || "v0.3.1";
const missing = [
  ...(process.getuid?.() === 0 ? [] : ["root"]),
  ...(OS_INSTALLER !== "" && existsSync(OS_INSTALLER)
    ? []
    : [`OS_INSTALLER=${OS_INSTALLER || "PATH"} (a static os-installer ${VERSION} binary: make test-realos OS_INSTALLER=PATH)`]),
  ...["unshare", "losetup", "mkfs.ext4", "mkfs.vfat", "blkid", "chroot", "fusefat"].filter((t) => Bun.which(t) === null),
  ...(existsSync(join(IMAGE_DIR, "img.tar.lz4")) ? [] : ["build/debian/img.tar.lz4 (make debian-image)"]),
];

function must(argv: string[]): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

describe("the real os-installer against the agent's contract files", () => {
  test("prerequisites", () => {
    // A missing prerequisite fails (never a silent skip): make test-realos builds the image and needs OS_INSTALLER.
    expect(missing).toEqual([]);
  });
  if (missing.length > 0) return;

  let work: string;
  let server: ImageServer;
  let carriedRoot: string;
  let carried: CarriedInstallerInfo;
  const loops: string[] = [];
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mh-realos-"));
    // The initramfs's part as initramfs/build.ts --os-installer writes it: the binary and its facts, checked by the build's own rules (static ELF).
    carriedRoot = join(work, "initramfs");
    mkdirSync(join(carriedRoot, "usr/lib/metal-hammer"), { recursive: true });
    const bytes = readFileSync(OS_INSTALLER);
    carried = carriedInstallerInfo(bytes, OS_INSTALLER, "os-installer", VERSION, new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
    copyFileSync(OS_INSTALLER, join(carriedRoot, CARRIED_INSTALLER_PATH));
    writeFileSync(join(carriedRoot, CARRIED_INSTALLER_INFO_PATH), `${JSON.stringify(carried)}\n`);
    must(["mkdir", "-p", join(work, "cache/debian/13")]);
    for (const f of ["img.tar.lz4", "img.tar.lz4.md5"]) must(["ln", "-s", join(IMAGE_DIR, f), join(work, "cache/debian/13", f)]);
    server = await startImageServer(join(work, "cache"));
    // Sparse files: 2 GiB root, 128 MiB ESP.
    for (const [name, size] of [
      ["root.img", "2G"],
      ["esp.img", "128M"],
    ] as const)
      must(["truncate", "-s", size, join(work, name)]);
    for (const name of ["root.img", "esp.img"]) loops.push(must(["losetup", "--find", "--show", join(work, name)]));
  });
  afterAll(async () => {
    await server?.stop();
    for (const l of loops) spawnSync("losetup", ["-d", l]);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** One install onto freshly made filesystems; `extra` is merged into the allocation as sent. */
  async function install(extra?: Record<string, unknown>) {
    must(["mkfs.ext4", "-q", "-F", "-L", "root", loops[0]!]);
    // No volume label: fusefat lists a label as a file in the root directory (an "EFI" label would block EFI/).
    must(["mkfs.vfat", loops[1]!]);
    const rootUuid = must(["blkid", "-s", "UUID", "-o", "value", loops[0]!]);
    const timeoutMs = 300_000;
    const argv = [
      process.execPath,
      join(import.meta.dir, "os-installer-driver.ts"),
      new URL("/debian/13/img.tar.lz4", server.url).href,
      loops[0]!,
      loops[1]!,
      rootUuid,
      work,
      String(timeoutMs),
      carriedRoot,
      ...(extra ? [JSON.stringify(extra)] : []),
    ];
    const p = Bun.spawn(["unshare", "--mount", "--propagation", "private", ...argv], { stdout: "pipe", stderr: "pipe" });
    const killer = setTimeout(() => p.kill("SIGKILL"), timeoutMs + 60_000);
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    await p.exited;
    clearTimeout(killer);
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    if (!line) throw new Error(`driver gave no result (exit ${p.exitCode}): ${err.slice(-3000)}`);
    const result = JSON.parse(line.slice(7)) as Record<string, unknown> & { files: Record<string, unknown> };
    const installerLines = out
      .split("\n")
      .filter((l) => l.includes('"event":"install.installer.output"'))
      .map((l) => (JSON.parse(l) as { line: string }).line);
    if (process.env.REALOS_RECORD) writeFileSync(process.env.REALOS_RECORD, installerLines.join("\n") + "\n");
    return { rootUuid, result, installerLines, run: parseOsInstallerLog(installerLines) };
  }

  test("installOs runs the carried os-installer as /os-installer: every task of its list, boot-info for kexec, the network from the allocation", async () => {
    const { rootUuid, result, installerLines, run } = await install();
    process.stdout.write(`os-installer tasks (${run.tasks.length}, ${run.took ?? "?"}):\n${run.tasks.map((t) => `  ${String(t.ms).padStart(6)} ms  ${t.name}`).join("\n")}\n`);
    process.stdout.write(`wall ${result.wallMs} ms (image ${result.imageBytes} bytes, installer ${result.installerMs} ms)\n`);
    if (result.ok !== true) throw new Error(`install failed: ${JSON.stringify(result)}\n${installerLines.slice(-30).join("\n")}`);
    expect(run.failed).toBeUndefined();
    expect(run.succeeded).toBe(true);
    // Every task of os-installer v0.3.1's list (pkg/installer/installer.go), in order: none skipped.
    expect(run.tasks.map((t) => t.name)).toEqual([...OS_INSTALLER_TASKS]);
    const f = result.files;
    // The image has none of its own: the carried one ran, copied in as /os-installer, and is gone after.
    expect([result.binary, result.choice]).toEqual(["/os-installer", "carried"]);
    expect(result.choiceReason).toContain(`the ${describeCarried(carried)} this initramfs carries, copied in as /os-installer`);
    expect(f.installerLeft).toBe(false);
    expect(result.bootInfo).toMatchObject({
      kernel: expect.stringMatching(/^\/boot\/vmlinuz-6\.\d+/),
      initrd: expect.stringMatching(/^\/boot\/initrd\.img-6\.\d+/),
      bootloaderId: "metal-debian",
    });
    expect((result.bootInfo as { cmdline: string }).cmdline).toBe(
      `console=ttyS0,115200n8 root=UUID=${rootUuid} init=/sbin/init net.ifnames=0 biosdevname=0 nvme_core.io_timeout=300`,
    );
    expect(f.hostname).toBe(REALOS_HOSTNAME);
    expect(f.resolvConf).toContain("nameserver 192.0.2.53");
    // FRR from the allocation's child network (ASN, router id = its first IP), validated by os-installer with vtysh --dryrun.
    expect(f.frrConf).toContain("router bgp 4210000047");
    expect(f.frrConf).toContain("bgp router-id 10.132.16.1");
    expect(f.networkd).toEqual(expect.arrayContaining(["00-lo.network"]));
    expect(f.metalUser).toStartWith("metal:");
    expect(f.grubCfg).toBe(true);
    // grub-install --removable: the fallback loader path firmware finds by itself.
    expect([f.esp, f.espBoot]).toEqual([["BOOT"], ["BOOTX64.EFI"]]);
    expect(f.defaultGrub).toContain('GRUB_SERIAL_COMMAND="serial --speed=115200 --unit=0 --word=8"');
    expect(f.buildMeta).toContain(`buildVersion: ${VERSION}`);
    expect(f.lvmlocal).toContain("obtain_device_list_from_udev = 0");
    // os-installer re-encodes the allocation it read (protoyaml) into the same file: it parsed all of it.
    expect(f.allocationPersisted).toContain("hostname: realos-1");
    expect(f.allocationPersisted).toContain('vrf: "46"');
  }, 420_000);

  test("an allocation with a field newer than os-installer's metal-stack/api: os-installer v0.3.1 refuses the file", async () => {
    // placementLabels is MachineAllocation field 18 in our pinned metal-stack/api, not in os-installer v0.3.1's v0.4.4.
    const { result, run } = await install({ placementLabels: { labels: { rack: "r01" } } });
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(54);
    expect(run.configError).toContain('unknown field "placementLabels"');
    expect(run.tasks).toEqual([]);
  }, 420_000);
});
