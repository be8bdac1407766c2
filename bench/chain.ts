/**
 * bench/chain.ts: where the time goes in the boot chain, per phase, side by side for
 *   iso     the installation ISO (SeaBIOS CD boot -> ISOLINUX -> ipxe.lkrn + chain.ipxe)
 *   lkrn    Debian's ipxe.lkrn with the same script as -initrd (no CD boot, no ISOLINUX)
 *   direct  QEMU -kernel/-initrd (no iPXE, no downloads: the lab's fast variant)
 *   iso-e1000  the ISO with an e1000 NIC instead of virtio-net (only if asked for in
 *           VARIANTS; the marker initrd has no e1000 driver, so its report then fails)
 * Every figure is milliseconds after QEMU was spawned (host clock; console arrival and
 * the boot server's request log), median [min-max] over RUNS (3) runs per variant.
 * The initrd is the marker initrd plus PAD_MB (48) MiB of random bytes in a second,
 * uncompressed cpio segment, so its size is near the real agent initramfs (~59 MB lz4).
 *
 *   sudo bun bench/chain.ts            (root: netns, tap)
 * Env: RUNS, PAD_MB, VARIANTS=iso,lkrn,direct, KERNEL, INITRD (use another initrd as is,
 * e.g. the agent initramfs: /init is then its agent.start, hand-off its hand-off or
 * the end of its flow), CMDLINE (extra words, e.g. METAL_DONE=poweroff for the agent),
 * STANDINS=1 (the https stand-ins, so the agent's flow runs to its end; machine uuid
 * 00000000-6d68-6300-0000-000000000001; not with direct, which is dropped then).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOT_SERVER_URL, ChainLab, type ChainLabOptions } from "../lab/chain/chain-lab.ts";
import { run } from "../lab/ipxe/lab-process.ts";
import { interruptExit, Lifecycle } from "../lab/lifecycle/lifecycle.ts";
import { waitFor } from "../lab/base/wait.ts";
import { cmdlineFor, type Partition } from "../lab/ipxe/partitions.ts";

const ROOT = join(import.meta.dir, "..");
const env = process.env;
const RUNS = Number(env.RUNS || 3);
const PAD_MB = Number(env.PAD_MB ?? 48);
const VARIANTS = (env.VARIANTS || "iso,lkrn,direct")
  .split(",")
  // direct has no boot server hop, so nothing hands it the stand-ins' URL and CA.
  .filter((v) => !(env.STANDINS === "1" && v === "direct")) as ("iso" | "lkrn" | "direct" | "iso-e1000")[];
const KERNEL =
  env.KERNEL ||
  `/boot/${readdirSync("/boot")
    .filter((f) => f.startsWith("vmlinuz-"))
    .sort()
    .at(-1)}`;
const PREFIX = "2001:db8:a::/64";
const BENCH_UUID = "00000000-6d68-6300-0000-000000000001";

const work = mkdtempSync(join(tmpdir(), "mhc-bench-"));
// One clean-up stack for the bench (its work dir); SIGINT/SIGTERM while a lab runs tear that
// lab down (QEMU and every process by PID, its namespace, its dir) and the bench unwinds;
// otherwise clean-up at once. Either way: exit 130/143, nothing left.
const life = new Lifecycle();
life.push(`work dir ${work}`, () => rmSync(work, { recursive: true, force: true }));
life.catchSignals((line) => console.error(`bench: ${line}`));
try {
  const iso = join(work, "lab.iso");
  const renv = { ...process.env, BOOT_URL: `${BOOT_SERVER_URL}/boot.ipxe`, ISO_ATTEMPTS: "1", ISO_RETRY_DELAY: "1" };
  const r = Bun.spawnSync([process.execPath, join(ROOT, "ipxe/render-chain.ts"), `${iso}.ipxe`], { env: renv });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  await run([join(ROOT, "ipxe/mkiso.sh"), `${iso}.ipxe`, iso]);
  let initrd = env.INITRD ?? "";
  if (!initrd) {
    initrd = join(work, "marker-pad.img");
    await run([join(ROOT, "lab/ipxe/mk-marker-initrd.sh"), "bench", initrd]);
    if (PAD_MB > 0) {
      await run(["bash", "-c", `cd ${work} && head -c ${PAD_MB}M /dev/urandom > pad && echo pad | cpio -o -H newc -R 0:0 --quiet >> ${initrd} && rm pad`]);
    }
  }
  const part: Partition = {
    name: "bench",
    prefix: PREFIX,
    kernel: KERNEL,
    initrd,
    initrdVersion: "bench",
    metalBootUrl: BOOT_SERVER_URL,
    cmdline: `console=ttyS0,115200n8 panic=-1 METAL_UUID=${BENCH_UUID} ${env.CMDLINE ?? ""}`.trim(),
    extraInitrds: [],
  };
  const kernelMB = statSync(KERNEL).size / 1e6;
  const initrdMB = statSync(initrd).size / 1e6;
  console.log(`kernel ${KERNEL} ${kernelMB.toFixed(1)} MB, initrd ${initrdMB.toFixed(1)} MB, ${RUNS} runs per variant, TCG -cpu max, virtio-net unless the variant says e1000\n`);

  type Row = Record<string, number | undefined>;
  const rows: Record<string, Row[]> = {};
  for (const variant of VARIANTS) {
    rows[variant] = [];
    for (let i = 0; i < RUNS; i++) {
      const boot: ChainLabOptions["boot"] =
        variant === "lkrn"
          ? { kind: "lkrn", lkrn: "/usr/lib/ipxe/ipxe.lkrn", script: `${iso}.ipxe` }
          : variant === "direct"
            ? { kind: "direct", kernel: KERNEL, initrd, append: cmdlineFor(part) }
            : { kind: "iso" };
      const nicModel = variant === "iso-e1000" ? "e1000" : "virtio";
      const standins = env.STANDINS === "1" ? { standins: { machines: [{ uuid: BENCH_UUID, partition: "bench" }], allocateAfterMs: 300 } } : {};
      const lab = new ChainLab({
        iso,
        boot,
        nicModel,
        memoryMb: 1024,
        ...standins,
        machines: [{ name: "bench", prefix: PREFIX, mac: "52:54:00:12:34:56" }],
        bootServer: { partitions: [part] },
      });
      const measured = await life.stoppable(
        () => void lab.tearDown(),
        async () => {
          try {
            await lab.setUp();
            lab.startMachines();
            const m = lab.machines[0];
            if (!m) throw new Error("no machine");
            // The marker cannot report over e1000 (no driver in it) but still powers off.
            await waitFor(() => m.qemu.exitCode !== null, 180_000, `${variant} run ${i + 1} to power off`);
            const t0 = m.started;
            const rel = (t: number | undefined) => (t === undefined ? undefined : t - t0);
            const req = (p: RegExp) => lab.requests().find((e) => p.test(e.path));
            const k = req(/vmlinuz$/);
            const d = req(/initrd-/);
            return {
              "iPXE up": rel(m.qemu.timeOf(/iPXE initialising devices/)),
              "chain script": rel(m.qemu.timeOf(/attempt 1\//)),
              "SLAAC address": rel(m.qemu.timeOf(/net0 is 2001/)),
              "boot.ipxe": rel(req(/boot\.ipxe/)?.start),
              "kernel done": rel(k?.end),
              "kernel MB/s": k ? k.bytes / 1e3 / Math.max(1, k.end - k.start) : undefined,
              "initrd done": rel(d?.end),
              "initrd MB/s": d ? d.bytes / 1e3 / Math.max(1, d.end - d.start) : undefined,
              "/init": rel(m.qemu.timeOf(/MHC-MARKER init|"event":"agent\.start"/)),
              // The marker's last line; the agent's hand-off, or the end of its flow where stages are not built yet.
              "hand-off": rel(m.qemu.timeOf(/MHC-MARKER done|"event":"(handoff\.exec|handoff\.write|agent\.done|agent\.not_built|agent\.fatal)"/)),
              "power off": rel(Date.now()),
            };
          } finally {
            await lab.tearDown();
          }
        },
      );
      life.checkInterrupt();
      rows[variant]?.push(measured);
    }
  }
  const keys = Object.keys(Object.values(rows)[0]?.[0] ?? {});
  const fmt = (vals: (number | undefined)[], rate: boolean): string => {
    const v = vals.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    if (v.length === 0) return "-";
    const f = (x: number) => (rate ? x.toFixed(1) : String(Math.round(x)));
    return `${f(v[Math.floor(v.length / 2)] as number)} [${f(v[0] as number)}-${f(v.at(-1) as number)}]`;
  };
  const head = ["phase (ms after QEMU start)", ...VARIANTS];
  const table = keys.map((key) => [
    key,
    ...VARIANTS.map((v) =>
      fmt(
        (rows[v] ?? []).map((r) => r[key]),
        key.endsWith("MB/s"),
      ),
    ),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  console.log(line(head));
  for (const row of table) console.log(line(row));
} finally {
  await life.cleanUp();
  if (life.interrupted) process.exit(interruptExit(life.interrupted));
}
