/**
 * /proc/self/mounts as data: the mount point and filesystem type of every line (fstab
 * format; octal escapes such as \040 for a space decoded). Pure. The one reader of that
 * table: PID 1's mount plan and the disks guard (what "/" is); the UEFI boot order step
 * reads /proc/self/mountinfo instead (mountinfo.ts: it needs the device numbers).
 */
export interface MountedFs {
  readonly target: string;
  readonly fstype: string;
}

export function parseMounts(text: string): MountedFs[] {
  const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3)
    .map((f) => ({ target: unescape(f[1] as string), fstype: f[2] as string }));
}

/** The type of the filesystem mounted at "/" in a /proc/self/mounts text (the last one wins: overmounts). Pure. */
export function rootFsType(mounts: string): string | undefined {
  return parseMounts(mounts).findLast((m) => m.target === "/")?.fstype;
}
