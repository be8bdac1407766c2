#!/usr/bin/env bun
/**
 * The real os-installer (metal-stack/os-installer, Apache-2.0, Go) as a static binary for
 * the lab: a peer the lab runs, never copied into the project.
 *
 *   bun lab/images/os-installer.ts --version v0.3.1 --out build/tools/os-installer-v0.3.1
 *
 * `go install github.com/metal-stack/os-installer@<version>` (CGO_ENABLED=0) through the
 * Go module proxy into a temporary GOBIN. Where the proxy does not serve it (this
 * project's machines on 2026-12-01: 403 "This module version is not available" for
 * github.com/metal-stack/os-installer, /api and /v), OS_INSTALLER=PATH names a static
 * os-installer binary of that version the operator built elsewhere; it is checked
 * (static, runs) and copied. Nothing here builds it from another source.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const MODULE = "github.com/metal-stack/os-installer";

function run(argv: string[], opts: { env?: Record<string, string> } = {}): { ok: boolean; out: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", env: { ...process.env, ...opts.env } });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() };
}

const ldflags = (version: string) =>
  [
    "-s",
    "-w",
    `-X 'github.com/metal-stack/v.Version=${version}'`,
    `-X 'github.com/metal-stack/v.Revision=tags/${version}'`,
    `-X 'github.com/metal-stack/v.BuildDate=${new Date().toISOString()}'`,
  ].join(" ");

export function buildOsInstaller(version: string, out: string, given = process.env.OS_INSTALLER): { how: string; seconds: number } {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), "mh-os-installer-"));
  try {
    let bin: string;
    let how: string;
    const viaProxy = run(["go", "install", "-ldflags", ldflags(version), `${MODULE}@${version}`], { env: { CGO_ENABLED: "0", GOFLAGS: "-trimpath", GOBIN: join(work, "bin") } });
    if (viaProxy.ok) {
      bin = join(work, "bin", "os-installer");
      how = `go install ${MODULE}@${version}`;
    } else {
      const refusal =
        viaProxy.out
          .split("\n")
          .find((l) => /40\d|not available/.test(l))
          ?.trim() ??
        viaProxy.out.split("\n").at(-1) ??
        "";
      if (!given) throw new Error(`go install ${MODULE}@${version} failed (${refusal}); set OS_INSTALLER=PATH to a static os-installer ${version} binary built elsewhere`);
      if (!existsSync(given)) throw new Error(`OS_INSTALLER=${given}: no such file (expected a static os-installer ${version} binary)`);
      bin = given;
      how = `OS_INSTALLER=${given} (the module proxy refused: ${refusal})`;
    }
    const file = run(["file", "-b", bin]);
    if (!file.ok || !/statically linked/.test(file.out)) throw new Error(`${bin} is not a static binary: ${file.out}`);
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(bin, `${out}.tmp`);
    renameSync(`${out}.tmp`, out);
    return { how, seconds: Math.round((performance.now() - started) / 100) / 10 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { version: { type: "string" }, out: { type: "string" } } });
  if (!values.version || !values.out) {
    console.error("usage: bun lab/images/os-installer.ts --version vX.Y.Z --out PATH");
    process.exit(2);
  }
  try {
    console.log(JSON.stringify({ out: values.out, ...buildOsInstaller(values.version, values.out) }));
  } catch (e) {
    console.error(`os-installer: ${(e as Error).message}`);
    process.exit(1);
  }
}
