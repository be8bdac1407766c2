/**
 * The stand-ins in this process on ::1 (every server on a port of its own), for one test
 * file: started before its tests when `ok`, stopped and their state dir removed after.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStandins, type Standins } from "../../lab/standins/standins.ts";

export function loopbackStandins(prefix: string, ok: boolean): { readonly st: Standins; readonly dir: string } {
  const box: { st: Standins; dir: string } = { st: undefined as unknown as Standins, dir: "" };
  beforeAll(async () => {
    if (!ok) return;
    box.dir = mkdtempSync(join(tmpdir(), prefix));
    const on = { host: "::1", port: 0 };
    box.st = await startStandins({ stateDir: join(box.dir, "standins"), listen: { boot: on, api: on, images: on }, machines: [] });
  });
  afterAll(async () => {
    await box.st?.stop();
    if (box.dir) rmSync(box.dir, { recursive: true, force: true });
  });
  return box;
}
