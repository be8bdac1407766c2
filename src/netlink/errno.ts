/** Linux errno numbers the agent meets on netlink and sysctl paths, by name. */
export const ERRNO_NAMES: Readonly<Record<number, string>> = {
  1: "EPERM",
  2: "ENOENT",
  4: "EINTR",
  11: "EAGAIN",
  12: "ENOMEM",
  13: "EACCES",
  16: "EBUSY",
  17: "EEXIST",
  19: "ENODEV",
  22: "EINVAL",
  93: "EPROTONOSUPPORT",
  95: "EOPNOTSUPP",
  97: "EAFNOSUPPORT",
  98: "EADDRINUSE",
  99: "EADDRNOTAVAIL",
  100: "ENETDOWN",
  105: "ENOBUFS",
  110: "ETIMEDOUT",
};
export const ENOENT = 2;
export const EINTR = 4;
export const EAGAIN = 11;
export const ENODEV = 19;
export const ENOBUFS = 105;

export const errnoName = (n: number): string => ERRNO_NAMES[n] ?? `errno ${n}`;
