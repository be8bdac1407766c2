/**
 * Unpacks the image stream onto the target root: the agent decodes the LZ4 frames itself
 * (Debian's liblz4 over bun:ffi, lz4-frame.ts) and writes the tar stream into GNU tar from
 * Debian, which restores ownership as numbers (`--numeric-owner`: the initramfs has no
 * passwd of the image), modes (`-p`, setuid/setgid/sticky included), hard and symbolic
 * links, and every extended attribute the archive carries (`--xattrs --xattrs-include=*`:
 * file capabilities live in security.capability). Memory stays flat: each run of decoded
 * bytes is written and awaited until tar's pipe took it (backpressure); tar uses fixed
 * buffers.
 *
 * Not `lz4 -d | tar` or `tar -I lz4` (docs/install.md, "Throughput", measured side by side):
 * `lz4 -d` reads and writes 32 KiB at a time (65 000 system calls and two pipe copies per
 * GiB), and GNU tar reading an archive from a pipe with `-I` copies it once more through a
 * child process of its own. tar reads 128 KiB records (`-b 256 -B`: whole records from a
 * pipe, a short last one accepted; GNU tar's default of 10 KiB is 100 000 reads per GiB).
 * tar exits at the end-of-archive marker: data after it is decoded (lz4 checked) and
 * dropped, and tar's exit 0 and the hash decide (toTar).
 *
 * Why tools and not npm: see docs/install.md "Choices" (measured throughput; GNU tar
 * restores xattrs, sparse files and hard links as metal-images' Docker-exported tars
 * have them; a native lz4 addon is not embeddable in `bun build --compile`, a system
 * library through bun:ffi is).
 */
import { spawnSync } from "node:child_process";
import type { FileSink, Subprocess } from "bun";
import { LineTail } from "./line-tail.ts";
import { checkLiblz4, Lz4Error, lz4Decoder, type Lz4Sink } from "./lz4-frame.ts";

export interface ExtractFailure {
  /** tar's exit code (null when tar was stopped: killed, or the stream was bad before tar could end; 0 when the stream was bad after tar's end). */
  readonly exitCode: number | null;
  /** The last lines tar wrote to stderr, then the decoder's error (`lz4: ...`) if there was one. */
  readonly stderr: readonly string[];
  /** The target ran out of space (ENOSPC): fatal, never retried. */
  readonly diskFull: boolean;
}

/** "exit 2", "tar stopped" when tar has no exit code (killed, or the stream was bad first), or what went wrong after tar's exit 0. Pure. */
export function exitWords(f: ExtractFailure): string {
  if (f.exitCode === 0) return "tar exit 0, the stream after its end marker bad";
  return f.exitCode === null ? "tar stopped" : `exit ${f.exitCode}`;
}

export interface Extractor {
  /** Writes a chunk of the compressed image; resolves when tar's pipe took what it decoded to. Rejects once the stream is bad or tar has died. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the stream and waits for tar; resolves with undefined on success, else the failure. */
  end(): Promise<ExtractFailure | undefined>;
  /** Kills tar and waits for it to exit (at most a few seconds). */
  abort(): Promise<void>;
  /** Set once tar has exited with an error or the stream was bad (before end() was called too). */
  failure(): ExtractFailure | undefined;
  /** tar reported ENOSPC (it goes on with the next member; the caller stops at once). */
  diskFull(): boolean;
  /** tar exited 0 before the stream's end (it read the end-of-archive marker): the rest is decoded and dropped. */
  tarFinished(): boolean;
}

export type ExtractorFactory = (root: string) => Extractor;

/**
 * What turns the downloaded bytes into the tar stream: liblz4's frame decoder for the
 * tar.lz4 image, gzip/zstd/none for an OCI layer (oci/layer-decoder.ts). `finish` may
 * still hand out bytes (zlib's last block).
 */
export interface StreamDecoder {
  push(chunk: Uint8Array, out: Lz4Sink): Promise<void>;
  finish(out: Lz4Sink): void | Promise<void>;
  close(): void;
}

/** A stream that is not what it should be (a bad gzip/zstd block, a tar header that does not add up): tar is stopped, like on a bad LZ4 frame. */
export class BadStreamError extends Error {
  override readonly name = "BadStreamError";
}

const isBadStream = (e: unknown): e is Error => e instanceof Lz4Error || e instanceof BadStreamError;

export interface TarOptions {
  /** The tar binary (default "tar", found on PATH). */
  readonly tar?: string;
  /** The decoder in front of tar (default: the LZ4 frame decoder). */
  readonly decoder?: () => StreamDecoder;
  /** Extra arguments (tests). */
  readonly extraArgs?: readonly string[];
}

/** 256 blocks of 512 bytes: 128 KiB a read. */
export const TAR_BLOCKING_FACTOR = 256;

export function tarArgs(root: string, extra: readonly string[] = []): string[] {
  return ["-x", "-f", "-", "-b", String(TAR_BLOCKING_FACTOR), "-B", "-C", root, "-p", "--numeric-owner", "--xattrs", "--xattrs-include=*", ...extra];
}

const ENOSPC = /No space left on device/i;
const KEEP_LINES = 20;
/** How long abort() waits for a killed tar to exit. */
const ABORT_WAIT_MS = 5_000;

export function tarExtractor(opts: TarOptions = {}): ExtractorFactory {
  return (root) => startUnpack(root, opts);
}

const toolEnv = () => ({ PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" });

type Tar = Subprocess<"pipe", "ignore", "pipe">;

function startUnpack(root: string, opts: TarOptions): Extractor {
  const tarBin = opts.tar ?? "tar";
  let decoder: StreamDecoder;
  try {
    decoder = (opts.decoder ?? lz4Decoder)();
  } catch (e) {
    return deadExtractor((e as Error).message);
  }
  let tar: Tar;
  try {
    tar = Bun.spawn([tarBin, ...tarArgs(root, opts.extraArgs)], { stdin: "pipe", stdout: "ignore", stderr: "pipe", env: toolEnv() });
  } catch (e) {
    decoder.close();
    return deadExtractor(`cannot run ${tarBin}: ${(e as Error).message}`);
  }
  const tail = new StderrTail();
  /** The decoder's error, once the stream was bad. */
  let bad: Error | undefined;
  let failed: ExtractFailure | undefined;
  const failWith = (code: number | null): ExtractFailure => {
    decoder.close();
    const lines = bad ? [...tail.lines, bad.message] : tail.lines;
    failed = { exitCode: bad && code !== 0 ? null : code, stderr: lines.slice(-KEEP_LINES), diskFull: tail.diskFull };
    return failed;
  };
  /** tar's exit code once it exited and its stderr was read; a failure is kept at once. */
  const tarExit: Promise<number | null> = exitOf(tar, tail).then((code) => {
    tail.end();
    if (code !== 0) failWith(code);
    return code;
  });
  /** The unpack's outcome once tar exited: tar's exit and the decoder's verdict. */
  const outcome = async (): Promise<ExtractFailure | undefined> => {
    const code = await tarExit;
    decoder.close();
    return code === 0 && !bad ? undefined : (failed ?? failWith(code));
  };
  const stdin: FileSink = tar.stdin;
  let ended = false;
  // `bad` sets `ended`; `failed` is set only once tar has exited. tar's exit 0 before the
  // stream's end is no failure (toTar).
  const running = () => !ended && tar.signalCode === null && (tar.exitCode === null || tar.exitCode === 0);
  /**
   * A run of decoded bytes into tar's pipe. tar that exited 0 read the end-of-archive
   * marker (GNU tar with `-B` exits there without draining its pipe: the next write gets
   * EPIPE): what follows (the record padding of a large blocking factor, `tar -b 8192`, or
   * zeros appended) is still decoded, so liblz4 checks its frames, and dropped here. The
   * install is then judged by tar's exit and the hash, as `lz4 -dc | tar -x` is by tar's.
   */
  const toTar = async (bytes: Uint8Array) => {
    if (tar.exitCode === 0) return;
    try {
      // Backpressure: resolves once the pipe took the bytes (the buffer is reused after).
      // With the pipe full write() answers a promise too, rejected like flush() when tar
      // goes: both awaited, so neither rejection is left unhandled.
      await Promise.all([stdin.write(bytes), stdin.flush()]);
    } catch (e) {
      // The pipe broke: tar is gone, and only its exit 0 lets the stream go on.
      if ((await tarExit) !== 0) throw e;
    }
  };
  /** A bad stream: tar is stopped (what it unpacked so far is not to be trusted), the failure kept. */
  const stopOnBadStream = async (e: Error) => {
    bad = e;
    ended = true;
    if (tar.exitCode === null && tar.signalCode === null) tar.kill("SIGKILL");
    await outcome();
  };

  return {
    failure: () => failed,
    diskFull: () => tail.diskFull,
    tarFinished: () => tar.exitCode === 0 && !ended,
    async write(chunk) {
      if (!running()) throw new Error("tar is not running");
      try {
        await decoder.push(chunk, toTar);
      } catch (e) {
        if (isBadStream(e)) await stopOnBadStream(e);
        throw new Error(isBadStream(e) ? e.message : "tar stopped reading");
      }
    },
    async end() {
      if (!ended) {
        try {
          await decoder.finish(toTar);
        } catch (e) {
          // tar gone while the decoder's last bytes went to it: its exit says why.
          if (!isBadStream(e) && tar.exitCode === null && tar.signalCode === null) throw e;
          if (!isBadStream(e)) {
            ended = true;
            return await outcome();
          }
          await stopOnBadStream(e);
          return await outcome();
        }
        ended = true;
        try {
          await stdin.end();
        } catch {
          // tar already gone: its exit status says why
        }
      }
      return await outcome();
    },
    async abort() {
      ended = true;
      if (tar.exitCode === null && tar.signalCode === null) tar.kill("SIGKILL");
      // A tar stuck in the kernel (a hung disk: uninterruptible sleep) may never exit: bounded.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([tarExit, new Promise<void>((r) => (timer = setTimeout(r, ABORT_WAIT_MS)))]);
      clearTimeout(timer);
      decoder.close();
    },
  };
}

/** tar's exit code (null when a signal ended it) once its stderr is read to the end. */
async function exitOf(p: Tar, tail: StderrTail): Promise<number | null> {
  const decoder = new TextDecoder();
  try {
    for await (const b of p.stderr) tail.push(decoder.decode(b, { stream: true }));
  } catch {
    // the pipe broke: the exit status is what is left to say
  }
  await p.exited;
  return p.exitCode;
}

/** An unpack that could not start: every write rejects, end() answers the reason. */
function deadExtractor(why: string): Extractor {
  const failed: ExtractFailure = { exitCode: null, stderr: [why], diskFull: false };
  return {
    failure: () => failed,
    diskFull: () => false,
    tarFinished: () => false,
    write: () => Promise.reject(new Error(why)),
    end: () => Promise.resolve(failed),
    abort: () => Promise.resolve(),
  };
}

/**
 * tar's stderr as lines: the last KEEP_LINES kept while it runs, each capped (line-tail.ts:
 * a member name of 30 MB is a line of 2 KB here), ENOSPC noticed on any line; `end()` adds
 * a last line without a newline. Pure.
 */
export class StderrTail {
  diskFull = false;
  readonly #tail = new LineTail(KEEP_LINES, (l) => {
    if (ENOSPC.test(l)) this.diskFull = true;
  });

  get lines(): readonly string[] {
    return this.#tail.lines;
  }

  push(text: string): void {
    this.#tail.push(text);
  }

  end(): void {
    this.#tail.end();
  }
}

/**
 * Checks before any byte is downloaded that `tar` is GNU tar (busybox's applet has no
 * xattrs and no `--numeric-owner`) and that liblz4 loads; answers what is wrong, or undefined.
 */
export function checkTools(opts: TarOptions = {}): string | undefined {
  const env = toolEnv();
  const tar = opts.tar ?? "tar";
  const t = spawnSync(tar, ["--version"], { encoding: "utf8", env, timeout: 10_000 });
  if (t.error || t.status !== 0) return `cannot run ${tar} --version: ${t.error?.message ?? `exit ${t.status}`}`;
  if (!/GNU tar/.test(t.stdout))
    return `${tar} is not GNU tar (${JSON.stringify((t.stdout || t.stderr).split("\n")[0] ?? "")}); the image needs GNU tar for xattrs and numeric owners`;
  return checkLiblz4();
}
