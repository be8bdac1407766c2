/**
 * The real PID 1 path of dist/metal-hammer (bun:ffi mount/reboot, signals) without a VM:
 * the agent runs as PID 1 of new PID, mount and network namespaces (`unshare -pmnf`),
 * with a cmdline bind-mounted over that namespace's /proc/cmdline. reboot(2) in a
 * child PID namespace does not touch the machine: the kernel kills the namespace's
 * init with SIGHUP (restart) or SIGINT (power off / halt), which is what we observe.
 * The mounts land in the private mount namespace only; the empty network namespace
 * keeps the host's interfaces out of reach.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { prerequisites } from "../helpers/prerequisites.ts";
import { waitFor } from "../../lab/base/wait.ts";

const BIN = `${import.meta.dir}/../../dist/metal-hammer`;
const ready = prerequisites("metal-hammer as PID 1 in a PID namespace", [
  process.getuid?.() !== 0 && "root",
  !existsSync(BIN) && "dist/metal-hammer (make build)",
  Bun.which("unshare") === null && "unshare",
]);
const dir = mkdtempSync(`${tmpdir()}/mhl-pid1-`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startPid1(cmdline: string) {
  const file = `${dir}/cmdline-${Math.random().toString(16).slice(2)}`;
  writeFileSync(file, cmdline + "\n");
  const p = Bun.spawn(["unshare", "--pid", "--mount", "--net", "--fork", "--mount-proc", "sh", "-c", `mount --bind ${file} /proc/cmdline && exec ${BIN}`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return p;
}

/** Collects a stream's text as it comes, so a test can wait for a line instead of sleeping. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let buf = "";
  const dec = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) buf += dec.decode(chunk, { stream: true });
  })();
  return { text: () => buf, done };
}

const records = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The agent's PID on the host: the child of unshare (the forked namespace init that exec'd it). */
const childOf = (pid: number): number | undefined => {
  try {
    const c = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return c ? Number(c.split(" ")[0]) : undefined;
  } catch {
    return undefined;
  }
};

describe.skipIf(!ready)("metal-hammer as PID 1 in a PID namespace", () => {
  test("a fatal error with DEBUG off is logged with its code, then reboot(2) ends the namespace with SIGHUP", async () => {
    const p = startPid1("METAL_BOOT_URL=ftp://nowhere METAL_REBOOT_DELAY=0s");
    const killer = setTimeout(() => p.kill("SIGKILL"), 30_000);
    const [code, err] = [await p.exited, await new Response(p.stderr).text()];
    clearTimeout(killer);
    const r = records(err);
    expect(r[0]).toMatchObject({ event: "init.options", debug: false, done: "reboot", rebootDelayMs: 0 });
    expect(r.find((x) => x.event === "agent.fatal")).toMatchObject({ code: "usage", exitCode: 2, parameter: "METAL_BOOT_URL" });
    expect(r.at(-1)).toMatchObject({ event: "init.reboot", action: "reboot", msg: "reboot now" });
    expect(p.signalCode ?? code).toBe(process.platform === "linux" && p.signalCode ? "SIGHUP" : 129);
  }, 40_000);

  test("PID 1 mounts sys, dev, run and tmp, and SIGUSR2 powers off (SIGINT ends the namespace)", async () => {
    // A 60 s reboot delay keeps PID 1 waiting while we look at its mounts and signal it.
    const p = startPid1("METAL_BOOT_URL=ftp://nowhere METAL_REBOOT_DELAY=60s");
    const killer = setTimeout(() => p.kill("SIGKILL"), 40_000);
    const stderr = collect(p.stderr);
    try {
      const agent = await waitFor(() => childOf(p.pid), 10_000, "the agent's host PID");
      const mounts = await waitFor(
        () => {
          const m = readFileSync(`/proc/${agent}/mounts`, "utf8");
          return /^tmpfs \/tmp tmpfs/m.test(m) ? m : undefined;
        },
        15_000,
        "PID 1's mounts",
      );
      // (sys, dev and dev/pts come mounted from the host here; in the VM PID 1 mounts them: the e2e lab shows it.)
      for (const want of [
        /^sysfs \/sys sysfs/m,
        /^devtmpfs \/dev devtmpfs/m,
        /^devpts \/dev\/pts devpts/m,
        /^tmpfs \/run tmpfs rw,nosuid,nodev/m,
        /^tmpfs \/tmp tmpfs rw,nosuid,nodev/m,
      ])
        expect(mounts).toMatch(want);
      // SIGUSR2 once the agent has logged that it waits out the reboot delay (its signal handlers are set before the flow runs).
      await waitFor(() => records(stderr.text()).some((x) => x.event === "init.reboot" && x.delayMs === 60_000), 15_000, "PID 1's init.reboot line with the 60 s delay");
      process.kill(agent, "SIGUSR2");
      const code = await p.exited;
      await stderr.done;
      const r = records(stderr.text());
      expect(r.find((x) => x.event === "init.signal")).toMatchObject({ signal: "SIGUSR2", action: "poweroff" });
      expect(r.at(-1)).toMatchObject({ event: "init.reboot", action: "poweroff", reason: "signal SIGUSR2" });
      expect(p.signalCode ?? code).toBe(p.signalCode ? "SIGINT" : 130);
    } finally {
      clearTimeout(killer);
      p.kill("SIGKILL");
    }
  }, 60_000);
});
