/** sysfs look-ups behind an injectable root (default /sys), so selection is testable. */
import { existsSync } from "node:fs";
import { join } from "node:path";

export function sysfsHasDevice(root = "/sys"): (name: string) => boolean {
  return (name) => existsSync(join(root, "class/net", name, "device"));
}
