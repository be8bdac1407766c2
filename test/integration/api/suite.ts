/** What the netns suites against the stand-ins share: the stand-ins on a link's host end, and the closing secret scan. */
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStandins, type Standins } from "../../../lab/standins/standins.ts";
import type { Machine } from "../../../lab/standins/metal-boot.ts";
import { everythingPrinted, leakedTokens } from "./agent.ts";
import type { HostLink } from "../../helpers/netns.ts";

/** The three stand-ins on the host end of `link` (ports picked by the kernel), state and request log under `dir/standins`. */
export function standinsOn(link: HostLink, dir: string, machines: readonly Machine[], names: readonly string[] = [link.name]): Promise<Standins> {
  const on = { host: link.hostAddr, port: 0 };
  return startStandins({ stateDir: join(dir, "standins"), listen: { boot: on, api: on, images: on }, names, machines, logFile: join(dir, "standins", "requests.jsonl") });
}

/** Tokens were issued, and none of them (nor any of `secrets`) appears in anything the agents printed or the stand-ins logged. */
export function expectNothingLeaked(st: Standins, dir: string, secrets: readonly string[] = []): void {
  const everything = everythingPrinted(join(dir, "standins", "requests.jsonl"));
  expect(st.tokens.issued.length).toBeGreaterThan(0);
  expect(leakedTokens(st.tokens.issued, everything)).toEqual([]);
  expect(secrets.filter((s) => everything.includes(s))).toEqual([]);
}

/** Why the stand-ins cannot run here (their PKI needs openssl), or undefined. */
export const standinsSkip = (): string | undefined => (Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0 ? undefined : "needs openssl");

/** The three stand-ins on [::1] (no root needed), state in a fresh temp dir (`stop` removes it). */
export async function loopbackStandins(prefix: string, machines: readonly Machine[]): Promise<{ st: Standins; dir: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const on = { host: "::1", port: 0 };
  const st = await startStandins({ stateDir: join(dir, "standins"), listen: { boot: on, api: on, images: on }, machines });
  return {
    st,
    dir,
    async stop() {
      await st.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Between tests: no registrations, allocations, open Waits or recorded calls. */
export function resetStandins(st: Standins): void {
  st.machines.reset();
  st.calls.length = 0;
}
