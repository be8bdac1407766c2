/** What every fleet suite needs (root for namespaces; radvd, lldpd and the diskless wrapper's tools): registers the prerequisites test, returns whether all is there. */
import { prerequisites } from "../../helpers/prerequisites.ts";

export function fleetPrerequisites(suite: string): boolean {
  const isRoot = process.getuid?.() === 0;
  const missing = ["radvd", "lldpd", "lldpcli", "setpriv", "unshare"].filter((t) => !Bun.which(t, { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }));
  return prerequisites(suite, [!isRoot && "root", ...missing]);
}
