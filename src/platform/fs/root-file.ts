/**
 * Files of the installed system, opened from the agent so that nothing the image holds
 * (a symbolic link, a FIFO, a device node) reaches outside the target root or blocks the
 * agent. Every path is resolved by openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
 * against an fd of the root (src/platform/sys/openat2.ts): links and ".." are followed as the
 * installed system's own processes would see them, with the root as "/", never above it.
 *
 * - Reads open with O_NONBLOCK (a FIFO does not block the open), fstat the fd and refuse
 *   anything but a regular file, then read it with a cap. `followLast: false` adds
 *   O_NOFOLLOW (a link as the last component is refused).
 * - Writes create a temp file next to the target with O_CREAT|O_EXCL|O_NOFOLLOW and a
 *   random suffix, fsync it, and renameat(2) it over the name: a link, FIFO or device
 *   node at the name is replaced, never written through. Missing directories are made
 *   one component at a time with mkdirat(2) under the fd of their resolved parent.
 * - Directories (mount targets) come back as an O_PATH fd plus the path the kernel
 *   resolved it to (/proc/self/fd/N), which lies inside the root by construction.
 */
import { closeSync, fchmodSync, fstatSync, fsyncSync, readlinkSync, readSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { errnoName } from "../sys/errno.ts";
import {
  AT_FDCWD,
  O_CLOEXEC,
  O_CREAT,
  O_DIRECTORY,
  O_EXCL,
  O_NOFOLLOW,
  O_NONBLOCK,
  O_PATH,
  O_RDONLY,
  O_WRONLY,
  RESOLVE_IN_ROOT,
  RESOLVE_NO_MAGICLINKS,
  mkdirat,
  openat2,
  renameat,
  unlinkat,
} from "../sys/openat2.ts";
import { TooLargeError } from "./read-bounded.ts";

const EEXIST = 17;
const ENOENT = 2;
const ELOOP = 40;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const RESOLVE = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

/** A file of the target that could not be opened safely. `errno` 0: the kind of file was wrong. */
export class RootFileError extends Error {
  override readonly name = "RootFileError";
  constructor(
    readonly root: string,
    readonly path: string,
    readonly errno: number,
    why: string,
  ) {
    super(`${path} in ${root}: ${why}`);
  }
  get code(): string {
    return errnoName(this.errno);
  }
}

/** The path relative to the root fd ("." for the root itself). Pure. */
export function relativeInRoot(path: string): string {
  const parts = path.split("/").filter((s) => s !== "" && s !== ".");
  return parts.length === 0 ? "." : parts.join("/");
}

function fail(root: string, path: string, errno: number, what: string): never {
  throw new RootFileError(root, path, errno, `${what}: ${errnoName(errno)}`);
}

/** Runs `f` with an O_PATH fd of `root` (closed after). */
function withRoot<T>(root: string, f: (rootFd: number) => T): T {
  const fd = openat2(AT_FDCWD, root, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0);
  if (fd < 0) fail(root, "/", -fd, "cannot open the target root");
  try {
    return f(fd);
  } finally {
    closeSync(fd);
  }
}

const kind = (mode: number): string => {
  switch (mode & S_IFMT) {
    case 0o010000:
      return "a FIFO";
    case 0o020000:
      return "a character device";
    case 0o060000:
      return "a block device";
    case 0o040000:
      return "a directory";
    case 0o140000:
      return "a socket";
    case 0o120000:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
};

export interface OpenOptions {
  /** Follow a link as the last component (inside the root); default true. */
  readonly followLast?: boolean;
}

/** A regular file of the target, opened read-only (O_NONBLOCK, O_CLOEXEC): its fd. The caller closes it. */
export function openRegularInRoot(root: string, path: string, o: OpenOptions = {}): number {
  return withRoot(root, (rootFd) => {
    const flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (o.followLast === false ? O_NOFOLLOW : 0);
    const fd = openat2(rootFd, relativeInRoot(path), flags, 0, RESOLVE);
    if (fd === -ELOOP && o.followLast === false) throw new RootFileError(root, path, ELOOP, "is a symbolic link (not followed: expected a regular file)");
    if (fd < 0) fail(root, path, -fd, "cannot open");
    const st = fstatSync(fd);
    if ((st.mode & S_IFMT) !== S_IFREG) {
      closeSync(fd);
      throw new RootFileError(root, path, 0, `expected a regular file, found ${kind(st.mode)}`);
    }
    return fd;
  });
}

/** A regular file of the target, at most `cap` bytes (TooLargeError past it). */
export function readInRoot(root: string, path: string, cap: number, o: OpenOptions = {}): Uint8Array {
  const fd = openRegularInRoot(root, path, o);
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const buf = new Uint8Array(Math.min(64 * 1024, cap + 1 - total));
      const n = readSync(fd, buf, 0, buf.byteLength, null);
      if (n === 0) break;
      total += n;
      if (total > cap) throw new TooLargeError(`${root}${path}`, cap);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

export interface DirInRoot {
  /** O_PATH fd of the directory; the caller closes it. */
  readonly fd: number;
  /** Where the kernel resolved it (inside the root). */
  readonly real: string;
}

/** A directory of the target as an O_PATH fd, made (mode `mode`, each missing component) when `create`. */
export function dirInRoot(root: string, path: string, create: { mode: number } | undefined): DirInRoot {
  return withRoot(root, (rootFd) => {
    const parts = relativeInRoot(path) === "." ? [] : relativeInRoot(path).split("/");
    const open = (n: number): number => openat2(rootFd, n === 0 ? "." : parts.slice(0, n).join("/"), O_PATH | O_DIRECTORY | O_CLOEXEC, 0, RESOLVE);
    let fd = open(parts.length);
    if (fd === -ENOENT && create) {
      for (let i = 1; i <= parts.length; i++) {
        const parent = open(i - 1);
        if (parent < 0) fail(root, path, -parent, `cannot open /${parts.slice(0, i - 1).join("/")}`);
        const r = mkdirat(parent, parts[i - 1] as string, create.mode);
        closeSync(parent);
        if (r < 0 && -r !== EEXIST) fail(root, path, -r, `cannot create /${parts.slice(0, i).join("/")}`);
        const made = open(i);
        if (made < 0) fail(root, path, -made, `/${parts.slice(0, i).join("/")} exists but is no directory of the target (a link to a missing directory?)`);
        closeSync(made);
      }
      fd = open(parts.length);
    }
    if (fd < 0) fail(root, path, -fd, "cannot open the directory");
    return { fd, real: readlinkSync(`/proc/self/fd/${fd}`) };
  });
}

/**
 * Writes `content` to `path` of the target with `mode`, atomically: a temp file
 * (O_EXCL, random suffix) in the resolved directory, fsync, renameat over the name.
 * Missing directories are made with `dirMode`.
 */
export function writeInRoot(root: string, path: string, content: string | Uint8Array, mode: number, dirMode = 0o755): void {
  const rel = relativeInRoot(path);
  const slash = rel.lastIndexOf("/");
  const name = slash < 0 ? rel : rel.slice(slash + 1);
  if (name === "." || name === "..") throw new RootFileError(root, path, 0, "expected a file name");
  const dir = dirInRoot(root, slash < 0 ? "/" : `/${rel.slice(0, slash)}`, { mode: dirMode });
  try {
    const tmp = `.${name}.${randomBytes(8).toString("hex")}`;
    const fd = openat2(dir.fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode, RESOLVE);
    if (fd < 0) fail(root, path, -fd, `cannot create ${tmp}`);
    try {
      try {
        fchmodSync(fd, mode);
        const bytes = typeof content === "string" ? Buffer.from(content) : content;
        let off = 0;
        while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const r = renameat(dir.fd, tmp, dir.fd, name);
      if (r < 0) fail(root, path, -r, "cannot rename the temp file over it");
    } catch (e) {
      unlinkat(dir.fd, tmp);
      throw e;
    }
  } finally {
    closeSync(dir.fd);
  }
}
