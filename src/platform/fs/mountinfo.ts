/**
 * /proc/self/mountinfo as data (Linux Documentation/filesystems/proc.rst §3.5): per
 * line the device number (major:minor), the mount point (octal escapes such as \040
 * decoded) and, after the optional fields and their `-` separator, the filesystem type
 * and the source. Unlike /proc/self/mounts it says which block device a mount is on,
 * whatever name the source was given (/dev/md/esp, /dev/md127). Pure.
 */
export interface MountInfo {
  readonly major: number;
  readonly minor: number;
  readonly mountPoint: string;
  readonly fstype: string;
  readonly source: string;
}

const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));

export function parseMountInfo(text: string): MountInfo[] {
  const out: MountInfo[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(" ");
    const sep = f.indexOf("-", 6);
    const dev = /^(\d+):(\d+)$/.exec(f[2] ?? "");
    if (sep < 0 || !dev || f[4] === undefined || f[sep + 1] === undefined) continue;
    out.push({ major: Number(dev[1]), minor: Number(dev[2]), mountPoint: unescape(f[4]), fstype: f[sep + 1]!, source: unescape(f[sep + 2] ?? "") });
  }
  return out;
}

/** The filesystem mounted at `path` (the last one: overmounts hide the earlier). */
export function mountAt(text: string, path: string): MountInfo | undefined {
  return parseMountInfo(text).findLast((m) => m.mountPoint === path);
}
