/**
 * The stand-ins as the one process (standins-main.ts) the chain and the fleet start in
 * their namespace: its argv, the wait until it is ready (it writes standins.json just
 * before its "ready" line), and its request log (requests.jsonl, one answered request a
 * line) read back.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../base/wait.ts";
import type { LoggedRequest } from "./request-log.ts";

export const STANDINS_MAIN = join(import.meta.dir, "standins-main.ts");

export interface StandinsLaunch {
  /** `[addr]:port`: metal-boot's; the apiserver and the image cache take the next two ports. */
  readonly listen: string;
  readonly stateDir: string;
  /** The machines metal-boot knows, with their partition. */
  readonly machines: readonly { readonly uuid: string; readonly partition: string }[];
}

/** standins-main.ts's argv: where it listens, its state dir, the machines, then the driver's own flags. */
export function standinsArgv(l: StandinsLaunch, more: readonly string[] = []): string[] {
  return [process.execPath, STANDINS_MAIN, "--listen", l.listen, "--state-dir", l.stateDir, ...l.machines.flatMap((m) => ["--machine", `${m.uuid},${m.partition}`]), ...more];
}

/** What standins.json says once they are ready (the fields the drivers read). */
export interface StandinsInfo {
  readonly ready: true;
  /** The boot CA's PEM file (the machines trust it for metal-boot and the image cache). */
  readonly bootCa: string;
}

/** Waits (bounded) until the stand-ins wrote standins.json; throws when their process ended first (`output`: what it printed). */
export async function standinsReady(p: { readonly exitCode: number | null }, stateDir: string, boundMs: number, output?: () => string): Promise<StandinsInfo> {
  return await waitFor(
    () => {
      if (p.exitCode !== null) throw new Error(`the stand-ins exited ${p.exitCode}${output ? `: ${output()}` : ""}`);
      try {
        const info = JSON.parse(readFileSync(join(stateDir, "standins.json"), "utf8")) as StandinsInfo;
        return info.ready === true ? info : undefined;
      } catch {
        return undefined;
      }
    },
    boundMs,
    "the stand-ins to be ready",
  );
}

/** A request the stand-ins answered, as their log file has it (no headers, no body). */
export type StandinsRequest = Omit<LoggedRequest, "headers" | "body">;

/** The stand-ins' answered requests so far (none before they run). */
export function standinsRequests(stateDir: string): StandinsRequest[] {
  const f = join(stateDir, "requests.jsonl");
  if (!existsSync(f)) return [];
  return readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as StandinsRequest);
}
