#!/usr/bin/env bun
/**
 * Builds the real os-installer (metal-stack/os-installer, Apache-2.0, Go) as a static
 * binary for the lab: a peer the lab runs, never copied into the project.
 *
 *   bun lab/images/os-installer.ts --version v0.3.1 --out build/tools/os-installer-v0.3.1
 *
 * First `go install github.com/metal-stack/os-installer@<version>` (CGO_ENABLED=0) into
 * a temporary GOBIN. Where the Go module proxy does not serve metal-stack's modules
 * (this project's machines: 403 "This module version is not available" for
 * github.com/metal-stack/os-installer, /api and /v), OS_INSTALLER_MIRRORS names a
 * folder of git mirrors laid out as `<owner>+<name>/repo` (metal-stack+os-installer,
 * metal-stack+api, metal-stack+v): the version's tag is exported from each, the module
 * built with `replace` directives for api (at the version os-installer's go.mod pins)
 * and v; every other dependency still comes from the proxy, checked against go.sum.
 * Version variables are set as os-installer's own Makefile sets them (-X
 * github.com/metal-stack/v.Version=...), so /etc/metal/build-meta.yaml names it.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const MODULE = "github.com/metal-stack/os-installer";

function run(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): { ok: boolean; out: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: opts.cwd, encoding: "utf8", env: { ...process.env, ...opts.env } });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() };
}

function must(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): string {
  const r = run(argv, opts);
  if (!r.ok) throw new Error(`${argv.join(" ")} failed:\n${r.out}`);
  return r.out;
}

const ldflags = (version: string, sha: string) =>
  ["-s", "-w", `-X 'github.com/metal-stack/v.Version=${version}'`, `-X 'github.com/metal-stack/v.Revision=tags/${version}'`, `-X 'github.com/metal-stack/v.GitSHA1=${sha}'`, `-X 'github.com/metal-stack/v.BuildDate=${new Date().toISOString()}'`].join(" ");

/** A tag of a git mirror exported into `dir`; its commit. */
function exportTag(mirror: string, tag: string, dir: string): string {
  if (!existsSync(mirror)) throw new Error(`OS_INSTALLER_MIRRORS: ${mirror} is missing (expected a git mirror of that repository)`);
  mkdirSync(dir, { recursive: true });
  must(["sh", "-c", `git -C "${mirror}" archive "${tag}" | tar -x -C "${dir}"`]);
  return must(["git", "-C", mirror, "rev-parse", "--short=8", `${tag}^{commit}`]);
}

export function buildOsInstaller(version: string, out: string, mirrors = process.env.OS_INSTALLER_MIRRORS): { how: string; seconds: number } {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), "mh-os-installer-"));
  const env = { CGO_ENABLED: "0", GOFLAGS: "-trimpath" };
  try {
    const gobin = join(work, "bin");
    const viaProxy = run(["go", "install", "-ldflags", ldflags(version, ""), `${MODULE}@${version}`], { env: { ...env, GOBIN: gobin } });
    let how: string;
    if (viaProxy.ok) {
      how = `go install ${MODULE}@${version}`;
    } else {
      if (!mirrors) throw new Error(`go install ${MODULE}@${version} failed:\n${viaProxy.out}\nSet OS_INSTALLER_MIRRORS to a folder of git mirrors (metal-stack+os-installer/repo, metal-stack+api/repo, metal-stack+v/repo) to build it from them.`);
      const src = join(work, "src");
      const sha = exportTag(join(mirrors, "metal-stack+os-installer/repo"), version, join(src, "os-installer"));
      const gomod = readFileSync(join(src, "os-installer/go.mod"), "utf8");
      const pin = (m: string) => new RegExp(`^\\s*${m.replace(/\//g, "\\/")} (v\\S+)`, "m").exec(gomod)?.[1];
      const api = pin("github.com/metal-stack/api");
      const v = pin("github.com/metal-stack/v");
      if (!api || !v) throw new Error(`${MODULE}@${version} go.mod pins no github.com/metal-stack/api or /v`);
      exportTag(join(mirrors, "metal-stack+api/repo"), api, join(src, "api"));
      exportTag(join(mirrors, "metal-stack+v/repo"), v, join(src, "v"));
      must(["go", "mod", "edit", "-replace", "github.com/metal-stack/api=../api", "-replace", "github.com/metal-stack/v=../v"], { cwd: join(src, "os-installer") });
      mkdirSync(gobin, { recursive: true });
      must(["go", "build", "-tags", "osusergo,netgo", "-ldflags", ldflags(version, sha), "-o", join(gobin, "os-installer"), "."], { cwd: join(src, "os-installer"), env });
      how = `go build of ${MODULE} ${version} (${sha}) with metal-stack/api ${api} and metal-stack/v ${v} from OS_INSTALLER_MIRRORS (the module proxy refused: ${viaProxy.out.split("\n").find((l) => /40\d|not available/.test(l))?.trim() ?? "see go's output"})`;
    }
    const file = must(["file", "-b", join(gobin, "os-installer")]);
    if (!/statically linked/.test(file)) throw new Error(`the os-installer build is not static: ${file}`);
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(join(gobin, "os-installer"), `${out}.tmp`);
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
  console.log(JSON.stringify({ out: values.out, ...buildOsInstaller(values.version, values.out) }));
}
