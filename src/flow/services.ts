/**
 * The I/O the stages after bring-up use, with real defaults. Tests pass their own
 * (a sysfs directory, file paths in a temp dir, an exec that records instead of
 * replacing the process); one HttpClient per flow run.
 */
import { execNextStage } from "../handoff/exec.ts";
import { HANDOFF_FILE } from "../handoff/document.ts";
import { TOKEN_FILE } from "../boot/token.ts";
import { SYSFS_ROOT } from "../boot/uuid.ts";
import { READ_CAPS, readBounded } from "../fs/read-bounded.ts";
import { HttpClient } from "../http/client.ts";
import { PROC_ROOT } from "../inventory/collect.ts";
import type { Config } from "../config/config.ts";
import type { FlowDeps } from "./stage.ts";

export interface Services {
  readonly http: HttpClient;
  readonly sysRoot: string;
  /** procfs root (inventory: /proc/cpuinfo). */
  readonly procRoot: string;
  readonly tokenFile: string;
  readonly handoffFile: string;
  readonly readFile: (path: string) => Promise<Uint8Array>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exec: (path: string, args: readonly string[], env: readonly string[]) => void;
}

const cache = new WeakMap<FlowDeps, Services>();

export function services(config: Config, deps: FlowDeps): Services {
  const hit = cache.get(deps);
  if (hit) return hit;
  const given = deps.services ?? {};
  const s: Services = {
    http: given.http ?? new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log: deps.log }),
    sysRoot: given.sysRoot ?? SYSFS_ROOT,
    procRoot: given.procRoot ?? PROC_ROOT,
    tokenFile: given.tokenFile ?? TOKEN_FILE,
    handoffFile: given.handoffFile ?? HANDOFF_FILE,
    readFile: given.readFile ?? ((p) => readBounded(p, READ_CAPS.sysfs)),
    env: given.env ?? process.env,
    exec: given.exec ?? execNextStage,
  };
  cache.set(deps, s);
  return s;
}
