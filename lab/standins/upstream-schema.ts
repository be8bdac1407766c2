/**
 * The upstream protos with their validation rules, for the apiserver stand-in's
 * protovalidate interceptor (validation.ts). `buf build` compiles metal-stack/api's whole
 * proto tree (metal-stack/api@e6201fcb proto/) together with protovalidate's
 * buf/validate/validate.proto (bufbuild/protovalidate@4baed765 proto/protovalidate) into one
 * FileDescriptorSet, cached under build/ by a hash of every input file; protobuf-es'
 * createFileRegistry loads it. Where the reference is not there (a clone without
 * ../shared), `findUpstreamProtos` says why and the caller falls back to the project's own
 * rules (fallback-rules.ts); under CI=true that is an error, as the contract drift check
 * (test/clients/api/contract.test.ts) does.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { createFileRegistry, fromBinary, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const REPO = join(import.meta.dir, "../..");

export interface UpstreamProtos {
  /** metal-stack/api's proto/ (has metalstack/). */
  readonly api: string;
  /** protovalidate's proto/protovalidate (has buf/validate/validate.proto). */
  readonly protovalidate: string;
}

/**
 * METAL_API_REFERENCE / METAL_PROTOVALIDATE_REFERENCE, else shared/reference/ in a folder
 * above the repository (the contract test looks in the same places). A string: why not.
 */
export function findUpstreamProtos(env: NodeJS.ProcessEnv = process.env, repo = REPO): UpstreamProtos | string {
  let api = env.METAL_API_REFERENCE;
  let pv = env.METAL_PROTOVALIDATE_REFERENCE;
  for (let d = dirname(repo); d !== dirname(d) && (!api || !pv); d = dirname(d)) {
    if (!api && existsSync(join(d, "shared/reference/metal-stack-api/proto/metalstack"))) api = join(d, "shared/reference/metal-stack-api/proto");
    if (!pv && existsSync(join(d, "shared/reference/protovalidate/proto/protovalidate/buf/validate/validate.proto")))
      pv = join(d, "shared/reference/protovalidate/proto/protovalidate");
  }
  if (!api) return "metal-stack/api's protos not found (no shared/reference/metal-stack-api/proto above the repository, METAL_API_REFERENCE unset)";
  if (!pv) return "protovalidate's validate.proto not found (no shared/reference/protovalidate/proto/protovalidate above the repository, METAL_PROTOVALIDATE_REFERENCE unset)";
  if (!existsSync(join(api, "metalstack"))) return `metal-stack/api's protos not found: ${api} has no metalstack/ (METAL_API_REFERENCE?)`;
  if (!existsSync(join(pv, "buf/validate/validate.proto")))
    return `protovalidate's validate.proto not found: ${pv} has no buf/validate/validate.proto (METAL_PROTOVALIDATE_REFERENCE?)`;
  return { api, protovalidate: pv };
}

function protoFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".proto")) out.push(p);
    }
  };
  walk(root);
  return out;
}

/** A hash over every input .proto (path and bytes): the cache key. */
function inputHash(p: UpstreamProtos): string {
  const h = createHash("sha256");
  for (const root of [p.api, p.protovalidate]) for (const f of protoFiles(root)) h.update(relative(root, f)).update("\0").update(readFileSync(f)).update("\0");
  return h.digest("hex").slice(0, 16);
}

/**
 * The FileDescriptorSet of the upstream protos: build/upstream-protos/<hash>.binpb, made by
 * `buf build` (node_modules/.bin/buf, a devDependency) in a workspace whose buf.yaml lists
 * both trees as modules (upstream's own buf.yaml names protovalidate as a BSR dependency,
 * which needs the network).
 */
export function upstreamDescriptorSet(p: UpstreamProtos, buildDir = join(REPO, "build/upstream-protos")): string {
  const out = join(buildDir, `${inputHash(p)}.binpb`);
  if (existsSync(out) && statSync(out).size > 0) return out;
  // One workspace per process: test files may start stand-ins in parallel.
  const ws = join(buildDir, `workspace-${process.pid}`);
  mkdirSync(ws, { recursive: true });
  try {
    writeFileSync(join(ws, "buf.yaml"), `version: v2\nmodules:\n  - path: api\n  - path: protovalidate\n`);
    for (const [name, target] of [
      ["api", p.api],
      ["protovalidate", p.protovalidate],
    ] as const) {
      rmSync(join(ws, name), { force: true });
      symlinkSync(target, join(ws, name));
    }
    const tmp = `${out}.tmp-${process.pid}`;
    const r = Bun.spawnSync([join(REPO, "node_modules/.bin/buf"), "build", "-o", tmp], { cwd: ws, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`buf build of the upstream protos (${p.api}, ${p.protovalidate}) failed: ${r.stderr.toString().trim()}`);
    renameSync(tmp, out);
  } finally {
    // The links first, by themselves (never what they point to), then the folder.
    for (const name of ["api", "protovalidate"]) rmSync(join(ws, name), { force: true });
    rmSync(ws, { recursive: true, force: true });
  }
  return out;
}

/** The upstream protos as a registry (files, messages, extensions: the predefined rules too). */
export function loadUpstreamRegistry(file: string): FileRegistry {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, new Uint8Array(readFileSync(file))));
}
