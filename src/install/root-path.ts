/**
 * A path of the installed system resolved the way its own processes would see it, from
 * the agent outside its root: symbolic links are followed with the target root as "/"
 * (an absolute link such as /boot/vmlinuz -> /boot/vmlinuz-6.1.0-28-amd64 is looked up
 * inside the root, not in the initramfs), and ".." never climbs above the root. A
 * component that does not exist ends the walk (the rest is appended as given: opening it
 * reports ENOENT). At most 40 links (Linux's MAXSYMLINKS), then the path is returned
 * unresolved and opening it fails on its own.
 */
import { readlinkSync } from "node:fs";

const MAX_LINKS = 40;

/** The link's target, undefined when `p` is no link; "missing" when it does not exist (or cannot be read). */
export type ReadLink = (p: string) => string | undefined | "missing";

const readLink: ReadLink = (p) => {
  try {
    return readlinkSync(p);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EINVAL" ? undefined : "missing";
  }
};

export function resolveInRoot(root: string, path: string, readlink: ReadLink = readLink): string {
  const base = root.replace(/\/+$/, "");
  const at = (parts: readonly string[]) => `${base}/${parts.join("/")}`;
  const done: string[] = [];
  const todo = path.split("/");
  let links = 0;
  while (todo.length > 0) {
    const c = todo.shift() as string;
    if (c === "" || c === ".") continue;
    if (c === "..") {
      done.pop();
      continue;
    }
    const link = readlink(at([...done, c]));
    if (link === "missing") return at([...done, c, ...todo.filter((t) => t !== "" && t !== ".")]);
    if (link === undefined) {
      done.push(c);
      continue;
    }
    if (++links > MAX_LINKS) return at(path.split("/").filter((t) => t !== ""));
    if (link.startsWith("/")) done.length = 0;
    todo.unshift(...link.split("/"));
  }
  return at(done);
}
