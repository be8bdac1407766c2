/**
 * lab/base/diskless.ts keeps a process from this host's disks by construction: inside it, a
 * block device of this host cannot be opened by its path, by /proc/1/root, by a new device
 * node, or through a fresh devtmpfs, whatever the process tries as root. The agent's own
 * guard (src/machine/disk/guard.ts) is not involved.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { disklessArgv } from "../../../lab/base/diskless.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const isRoot = process.getuid?.() === 0;
/** A block device node of this host, with its major:minor (the test machine's disk). */
const hostBlock = (() => {
  for (const name of readdirSync("/sys/class/block")) {
    try {
      if (statSync(`/dev/${name}`).isBlockDevice()) return { path: `/dev/${name}`, dev: readFileSync(`/sys/class/block/${name}/dev`, "utf8").trim() };
    } catch {}
  }
  return undefined;
})();
const ok = prerequisites("diskless", [!isRoot && "root", !hostBlock && "a block device on this host", !Bun.which("setpriv") && "setpriv (util-linux)"]);

/** Runs a probe script as root inside the containment; one line per attempt. */
function probe(script: string): { code: number; out: string } {
  const p = Bun.spawnSync(disklessArgv([process.execPath, "-e", script]), { stdout: "pipe", stderr: "pipe", timeout: 30_000 });
  return { code: p.exitCode ?? -1, out: p.stdout.toString() + p.stderr.toString() };
}

describe.if(ok)("diskless", () => {
  test("a block device of this host cannot be opened from inside, by any of four ways", () => {
    const { path, dev } = hostBlock!;
    const [major, minor] = dev.split(":");
    const r = probe(`
      const fs = require("node:fs");
      const cp = require("node:child_process");
      const tryOpen = (p) => { try { fs.closeSync(fs.openSync(p, "r")); return "OPENED"; } catch (e) { return e.code; } };
      console.log("path", tryOpen(${JSON.stringify(path)}));
      console.log("proc1", tryOpen("/proc/1/root" + ${JSON.stringify(path)}));
      const mk = cp.spawnSync("mknod", ["/tmp/diskless-probe-" + process.pid, "b", "${major}", "${minor}"], { encoding: "utf8" });
      console.log("mknod", mk.status === 0 ? "MADE" : "refused");
      fs.mkdirSync("/tmp/diskless-mnt-" + process.pid, { recursive: true });
      const mt = cp.spawnSync("mount", ["-t", "devtmpfs", "devtmpfs", "/tmp/diskless-mnt-" + process.pid], { encoding: "utf8" });
      console.log("devtmpfs", mt.status === 0 ? "MOUNTED" : "refused");
      fs.rmSync("/tmp/diskless-mnt-" + process.pid, { recursive: true, force: true });
      console.log("blockdevs", fs.readdirSync("/dev").filter((n) => fs.statSync("/dev/" + n).isBlockDevice()).length);
    `);
    expect(r.out.trim().split("\n")).toEqual(["path ENOENT", "proc1 ENOENT", "mknod refused", "devtmpfs refused", "blockdevs 0"]);
    expect(r.code).toBe(0);
  });

  test("what the agent needs still works inside: /dev/null, /dev/urandom, /proc, a network socket", () => {
    const r = probe(`
      const fs = require("node:fs");
      fs.writeFileSync("/dev/null", "x");
      const fd = fs.openSync("/dev/urandom", "r"); const b = Buffer.alloc(16);
      console.log(fs.readSync(fd, b) === 16 ? "urandom" : "none"); fs.closeSync(fd);
      console.log(fs.readFileSync("/proc/self/status", "utf8").includes("CapBnd") ? "proc" : "no proc");
      require("node:net").createServer().listen(0, "127.0.0.1", function () { console.log("socket"); this.close(); });
    `);
    expect(r.out.trim().split("\n")).toEqual(["urandom", "proc", "socket"]);
  });
});
