/**
 * Unpacks the image stream onto the target root: GNU tar from Debian reading stdin,
 * decompressing through the `lz4` tool (tar -I lz4 runs `lz4 -d` in a pipe), with
 * ownership as numbers (`--numeric-owner`: the initramfs has no passwd of the image),
 * modes (`-p`, setuid/setgid/sticky included), hard and symbolic links, and every
 * extended attribute the archive carries (`--xattrs --xattrs-include=*`: file
 * capabilities live in security.capability). Memory stays flat: the agent writes
 * chunk by chunk and waits for the pipe to drain (backpressure), tar and lz4 use
 * fixed buffers.
 *
 * Why tools and not npm: see docs/install.md "Choices" (measured throughput; GNU tar
 * restores xattrs, sparse files and hard links as metal-images' Docker-exported tars
 * have them; a native lz4 addon is not embeddable in `bun build --compile`).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";

export interface ExtractFailure {
  /** tar's exit code (or null when killed by a signal). */
  readonly exitCode: number | null;
  /** The last lines tar/lz4 wrote to stderr. */
  readonly stderr: readonly string[];
  /** The target ran out of space (ENOSPC): fatal, never retried. */
  readonly diskFull: boolean;
}

export interface Extractor {
  /** Writes a chunk of the compressed image; resolves when the pipe accepted it. Rejects once tar has died. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the stream and waits for tar; resolves with undefined on success, else the failure. */
  end(): Promise<ExtractFailure | undefined>;
  /** Kills tar (and its lz4) and waits for it to exit (at most a few seconds). */
  abort(): Promise<void>;
  /** Set once tar has exited with an error (before end() was called too). */
  failure(): ExtractFailure | undefined;
  /** tar reported ENOSPC (it goes on with the next member; the caller stops at once). */
  diskFull(): boolean;
}

export type ExtractorFactory = (root: string) => Extractor;

export interface TarOptions {
  /** The tar binary (default "tar", found on PATH). */
  readonly tar?: string;
  /** Extra arguments (tests). */
  readonly extraArgs?: readonly string[];
}

export function tarArgs(root: string, extra: readonly string[] = []): string[] {
  return ["-x", "-f", "-", "-C", root, "-I", "lz4", "-p", "--numeric-owner", "--xattrs", "--xattrs-include=*", ...extra];
}

const ENOSPC = /No space left on device/i;
const KEEP_LINES = 20;
/** How long abort() waits for a killed tar to exit. */
const ABORT_WAIT_MS = 5_000;

export function tarExtractor(opts: TarOptions = {}): ExtractorFactory {
  return (root) => startTar(root, opts);
}

function startTar(root: string, opts: TarOptions): Extractor {
  const child: ChildProcess = spawn(opts.tar ?? "tar", tarArgs(root, opts.extraArgs), {
    stdio: ["pipe", "ignore", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" },
  });
  const tail = new StderrTail();
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (t: string) => tail.push(t));
  let failed: ExtractFailure | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<ExtractFailure | undefined>((resolve) => {
    child.on("error", (e) => {
      spawnError = e;
    });
    child.on("close", (code) => {
      tail.end();
      if (spawnError) tail.lines.push(`cannot run ${opts.tar ?? "tar"}: ${spawnError.message}`);
      failed = code === 0 && !spawnError ? undefined : { exitCode: code, stderr: tail.lines.slice(-KEEP_LINES), diskFull: tail.diskFull };
      resolve(failed);
    });
  });
  const stdin = child.stdin!;
  // EPIPE after tar died is reported through the exit status, not as a stray error.
  stdin.on("error", () => {});
  let ended = false;

  return {
    failure: () => failed,
    diskFull: () => tail.diskFull,
    async write(chunk) {
      if (failed || child.exitCode !== null || ended) throw new Error("tar is not running");
      if (!stdin.write(chunk)) await drained(stdin, child);
    },
    async end() {
      if (!ended) {
        ended = true;
        stdin.end();
      }
      return await exited;
    },
    async abort() {
      ended = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      stdin.destroy();
      // A tar stuck in the kernel (a hung disk: uninterruptible sleep) may never exit: bounded.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, ABORT_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}

/** Resolves when tar's stdin pipe takes data again, rejects when tar exits first. */
function drained(stdin: Writable, child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      stdin.off("drain", done);
      child.off("close", gone);
      resolve();
    };
    const gone = () => {
      stdin.off("drain", done);
      reject(new Error("tar exited"));
    };
    stdin.on("drain", done);
    child.once("close", gone);
  });
}

/**
 * tar's (and lz4's) stderr as lines: the last KEEP_LINES kept while it runs, ENOSPC
 * noticed on any line; `end()` adds a last line without a newline. Pure.
 */
export class StderrTail {
  readonly lines: string[] = [];
  diskFull = false;
  #partial = "";

  push(text: string): void {
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const l of lines) {
      if (ENOSPC.test(l)) this.diskFull = true;
      this.lines.push(l);
      if (this.lines.length > KEEP_LINES) this.lines.shift();
    }
  }

  end(): void {
    if (this.#partial === "") return;
    if (ENOSPC.test(this.#partial)) this.diskFull = true;
    this.lines.push(this.#partial);
    this.#partial = "";
  }
}

/**
 * Checks before any byte is downloaded that `tar` is GNU tar (busybox's applet has no
 * `-I` and no xattrs) and that `lz4` runs; answers what is wrong, or undefined.
 */
export function checkTools(opts: TarOptions & { readonly lz4?: string } = {}): string | undefined {
  const env = { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" };
  const tar = opts.tar ?? "tar";
  const t = spawnSync(tar, ["--version"], { encoding: "utf8", env, timeout: 10_000 });
  if (t.error || t.status !== 0) return `cannot run ${tar} --version: ${t.error?.message ?? `exit ${t.status}`}`;
  if (!/GNU tar/.test(t.stdout)) return `${tar} is not GNU tar (${JSON.stringify((t.stdout || t.stderr).split("\n")[0] ?? "")}); the image needs GNU tar for -I lz4 and xattrs`;
  const lz4 = opts.lz4 ?? "lz4";
  const l = spawnSync(lz4, ["--version"], { encoding: "utf8", env, timeout: 10_000 });
  if (l.error || l.status !== 0) return `cannot run ${lz4} --version: ${l.error?.message ?? `exit ${l.status}`}`;
  return undefined;
}
