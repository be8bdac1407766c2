/**
 * Applies a sysctl plan under an injectable /proc/sys root. Each write is read back;
 * a failure is an AgentError("netlink") naming the file. Returns what changed.
 */
import { writeFileSync } from "node:fs";
import { readBoundedTextSync } from "../../platform/fs/read-bounded.ts";
import { join } from "node:path";
import { AgentError } from "../../platform/errors.ts";
import { acceptRaEntry, basePlan, fastPlan, noRsDelayPlan, type SysctlEntry } from "./sysctl-plan.ts";

export interface SysctlWrite {
  readonly path: string;
  readonly from: number | undefined;
  readonly to: number;
}

function readNum(p: string): number | undefined {
  try {
    const n = Number(readBoundedTextSync(p, "sysfs").trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

export function applyEntry(root: string, e: SysctlEntry): SysctlWrite | undefined {
  const p = join(root, e.path);
  const cur = readNum(p);
  if (e.mode === "min" ? cur !== undefined && cur >= e.value : cur === e.value) return undefined;
  try {
    writeFileSync(p, `${e.value}\n`);
  } catch (err) {
    throw new AgentError("netlink", `sysctl ${e.path}=${e.value} (${e.why}): ${(err as Error).message}`, { path: e.path });
  }
  return { path: e.path, from: cur, to: e.value };
}

export interface SysctlProfile {
  /** The fast profile (METAL_NET_FAST). */
  readonly fast: boolean;
  /** router_solicitation_delay=0 (the default in l3 mode; off with METAL_NET_RS_DELAY=1). */
  readonly noRsDelay: boolean;
}

/** Everything for one interface name ("default" for conf/default), in order. */
export function applyInterfaceSysctls(root: string, ifname: string, profile: SysctlProfile): SysctlWrite[] {
  const { fast } = profile;
  const out: SysctlWrite[] = [];
  const push = (w: SysctlWrite | undefined) => void (w && out.push(w));
  let forwardingOff = true;
  for (const e of basePlan(ifname)) {
    if (e.path.endsWith("/forwarding")) {
      try {
        push(applyEntry(root, e));
      } catch {
        forwardingOff = false;
      }
      if (readNum(join(root, e.path)) !== 0) forwardingOff = false;
    } else push(applyEntry(root, e));
  }
  push(applyEntry(root, acceptRaEntry(ifname, forwardingOff)));
  if (profile.noRsDelay && !fast && ifname !== "default") for (const e of noRsDelayPlan(ifname)) push(applyEntry(root, e));
  if (fast) {
    for (const e of fastPlan(ifname)) {
      // neigh/default exists too; a missing knob (kernel without optimistic DAD) is skipped, not fatal.
      try {
        push(applyEntry(root, e));
      } catch (err) {
        if (!/ENOENT/.test((err as Error).message)) throw err;
      }
    }
  }
  return out;
}
