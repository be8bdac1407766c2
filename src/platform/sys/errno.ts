/** Linux errno numbers (x86-64/generic) the agent meets, by name: the one table. */
export const ERRNO_NAMES: Readonly<Record<number, string>> = {
  1: "EPERM",
  2: "ENOENT",
  3: "ESRCH",
  4: "EINTR",
  5: "EIO",
  7: "E2BIG",
  8: "ENOEXEC",
  9: "EBADF",
  10: "ECHILD",
  11: "EAGAIN",
  12: "ENOMEM",
  13: "EACCES",
  16: "EBUSY",
  17: "EEXIST",
  18: "EXDEV",
  19: "ENODEV",
  20: "ENOTDIR",
  21: "EISDIR",
  22: "EINVAL",
  25: "ENOTTY",
  26: "ETXTBSY",
  30: "EROFS",
  36: "ENAMETOOLONG",
  40: "ELOOP",
  61: "ENODATA",
  93: "EPROTONOSUPPORT",
  95: "EOPNOTSUPP",
  97: "EAFNOSUPPORT",
  98: "EADDRINUSE",
  99: "EADDRNOTAVAIL",
  100: "ENETDOWN",
  105: "ENOBUFS",
  110: "ETIMEDOUT",
  129: "EKEYREJECTED",
};
export const ENOENT = 2;
export const ESRCH = 3;
export const EINTR = 4;
export const EAGAIN = 11;
export const EBUSY = 16;
export const EEXIST = 17;
export const EXDEV = 18;
export const ENODEV = 19;
export const ENOBUFS = 105;

export const errnoName = (n: number): string => ERRNO_NAMES[n] ?? `errno ${n}`;

const ERRNO_BY_NAME: ReadonlyMap<string, number> = new Map(Object.entries(ERRNO_NAMES).map(([n, name]) => [name, Number(n)]));
export const EIO = 5;

/**
 * The errno of a failed node:fs call (its `code`, e.g. "ENOENT"), by the table above;
 * EIO when it has none or one the table does not hold.
 */
export function errnoOfError(e: unknown): number {
  const code = (e as { code?: unknown } | null)?.code;
  return (typeof code === "string" ? ERRNO_BY_NAME.get(code) : undefined) ?? EIO;
}
