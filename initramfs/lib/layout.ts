/**
 * What goes into the image and where: turns a list of items (files with their
 * source, symlinks, device nodes) into sorted cpio entries, adding the skeleton
 * directories and every missing parent. Pure; duplicates are an error, so nothing
 * lands in the image by accident.
 */
import { archiveName, CpioError, type CpioEntry } from "./cpio.ts";

export type FileSource = { readonly kind: "host"; readonly path: string } | { readonly kind: "bytes"; readonly data: Uint8Array };

export type ImageItem =
  | { readonly kind: "file"; readonly path: string; readonly mode: number; readonly size: number; readonly source: FileSource; readonly group: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string; readonly group: string }
  | { readonly kind: "dir"; readonly path: string; readonly mode: number; readonly group: string }
  | { readonly kind: "char"; readonly path: string; readonly mode: number; readonly major: number; readonly minor: number; readonly group: string };

/** Mount points and the console node the kernel opens for init before /dev is mounted. */
export const SKELETON: readonly ImageItem[] = [
  ...["bin", "dev", "etc", "lib", "proc", "run", "sbin", "sys", "usr", "usr/bin", "usr/sbin"].map((path): ImageItem => ({ kind: "dir", path, mode: 0o755, group: "skeleton" })),
  { kind: "dir", path: "root", mode: 0o700, group: "skeleton" },
  { kind: "dir", path: "tmp", mode: 0o1777, group: "skeleton" },
  { kind: "char", path: "dev/console", mode: 0o600, major: 5, minor: 1, group: "skeleton" },
];

export interface Image {
  readonly entries: readonly CpioEntry[];
  /** Where each regular file's bytes come from, by entry path. */
  readonly sources: ReadonlyMap<string, FileSource>;
  /** Entry path -> group ("agent", "libs", "modules", ...) for the size report. */
  readonly groups: ReadonlyMap<string, string>;
}

const byteCompare = (a: string, b: string): number => {
  const ea = Buffer.from(a);
  const eb = Buffer.from(b);
  return Buffer.compare(ea, eb);
};

export function composeImage(items: readonly ImageItem[]): Image {
  const all = new Map<string, ImageItem>();
  const add = (it: ImageItem): void => {
    const p = archiveName(it.path);
    const prev = all.get(p);
    if (prev) {
      // The same directory may be asked for twice (skeleton and a file's parent); anything else is a clash.
      if (prev.kind === "dir" && it.kind === "dir" && prev.mode === it.mode) return;
      throw new CpioError(`image: ${p} is added twice (${prev.group} and ${it.group})`);
    }
    all.set(p, { ...it, path: p });
  };
  for (const it of items) add(it);
  for (const p of [...all.keys()]) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      const have = all.get(dir);
      if (!have) all.set(dir, { kind: "dir", path: dir, mode: 0o755, group: "skeleton" });
      else if (have.kind !== "dir") throw new CpioError(`image: ${dir} is a ${have.kind} but ${p} needs it as a directory`);
    }
  }
  const paths = [...all.keys()].sort(byteCompare);
  const entries: CpioEntry[] = [];
  const sources = new Map<string, FileSource>();
  const groups = new Map<string, string>();
  for (const p of paths) {
    const it = all.get(p) as ImageItem;
    groups.set(p, it.group);
    if (it.kind === "file") {
      entries.push({ kind: "file", path: p, mode: it.mode, size: it.size });
      sources.set(p, it.source);
    } else if (it.kind === "symlink") entries.push({ kind: "symlink", path: p, target: it.target });
    else if (it.kind === "dir") entries.push({ kind: "dir", path: p, mode: it.mode });
    else entries.push({ kind: "char", path: p, mode: it.mode, major: it.major, minor: it.minor });
  }
  return { entries, sources, groups };
}

/** Busybox applet symlinks (`busybox --list-full` lines) that do not collide with an item already in the image. */
export function appletLinks(listFull: string, busyboxPath: string, taken: ReadonlySet<string>): ImageItem[] {
  const out: ImageItem[] = [];
  const target = "/" + archiveName(busyboxPath);
  for (const raw of listFull.split("\n")) {
    const p = raw.trim().replace(/^\/+/, "");
    if (p === "" || taken.has(p) || "/" + p === target) continue;
    out.push({ kind: "symlink", path: p, target, group: "busybox" });
  }
  return out;
}

/** Bytes per group and in total (the uncompressed payload), for the size report. */
export function sizeByGroup(items: readonly ImageItem[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const it of items) out.set(it.group, (out.get(it.group) ?? 0) + (it.kind === "file" ? it.size : 0));
  return out;
}
