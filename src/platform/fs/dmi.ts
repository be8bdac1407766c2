/** One DMI attribute (<sysRoot>/class/dmi/id/<name>), trimmed; undefined when unreadable (a VM or board without it). */
import { readBoundedTextSync } from "./read-bounded.ts";

export function readDmi(sysRoot: string, name: string): string | undefined {
  try {
    return readBoundedTextSync(`${sysRoot}/class/dmi/id/${name}`, "sysfs").trim();
  } catch {
    return undefined;
  }
}
