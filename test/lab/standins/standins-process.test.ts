/** The stand-ins' process as the chain and the fleet start it (lab/standins/standins-process.ts). */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STANDINS_MAIN, standinsArgv, standinsReady, standinsRequests } from "../../../lab/standins/standins-process.ts";

const dirs: string[] = [];
const stateDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "mh-standins-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("argv: bun, standins-main.ts, where it listens, its state dir, each machine with its partition, then the driver's flags", () => {
  const machines = [
    { uuid: "u1", partition: "rack1" },
    { uuid: "u2", partition: "rack1" },
  ];
  expect(standinsArgv({ listen: "[2001:db8:f1::1]:18443", stateDir: "/s", machines }, ["--switches", "/t.json"])).toEqual([
    process.execPath,
    STANDINS_MAIN,
    "--listen",
    "[2001:db8:f1::1]:18443",
    "--state-dir",
    "/s",
    "--machine",
    "u1,rack1",
    "--machine",
    "u2,rack1",
    "--switches",
    "/t.json",
  ]);
});

test("ready: resolves with standins.json once it says ready; a process that ended first is named with its exit code and output", async () => {
  const dir = stateDir();
  writeFileSync(join(dir, "standins.json"), JSON.stringify({ ready: true, bootCa: "/s/pki/boot-ca.pem" }));
  expect((await standinsReady({ exitCode: null }, dir, 1_000)).bootCa).toBe("/s/pki/boot-ca.pem");
  await expect(standinsReady({ exitCode: 2 }, stateDir(), 1_000, () => "--listen: bad address")).rejects.toThrow("the stand-ins exited 2: --listen: bad address");
});

test("requests: the log's lines, none before the log exists", () => {
  const dir = stateDir();
  expect(standinsRequests(dir)).toEqual([]);
  const line = { time: "2026-12-05T21:00:00.000Z", server: "api", method: "POST", path: "/metalstack.api.v2.MachineService/Register", source: "2001:db8:f1::a", status: 200 };
  writeFileSync(join(dir, "requests.jsonl"), `${JSON.stringify(line)}\n`);
  expect(standinsRequests(dir)).toEqual([line]);
});
