/**
 * `metal-hammer image pull oci://REGISTRY/REPO:TAG --to DIR`: an OCI image installed into
 * a directory as the flow installs it (src/install/oci/pull.ts: the machine's platform
 * from the index, every layer streamed into GNU tar, sha256 verified inline, whiteouts
 * applied inside DIR), for an operator in the debug shell. Credentials never on the
 * command line: `--auth-file FILE` holds them in the shape of metal-boot's oci_configs
 * (`{"registry.example.com": {"username": "...", "password": "..."}}`), a file that no
 * other user may read. TLS as every command: METAL_CA from the cmdline.
 */
import type { Command } from "commander";
import { stat } from "node:fs/promises";
import { AgentError } from "../platform/errors.ts";
import { HttpClient } from "../clients/http/http-client.ts";
import { DEFAULT_RETRY } from "../clients/http/retry.ts";
import type { OciConfigs } from "../install/oci/credentials.ts";
import { installOciImage } from "../install/oci/pull.ts";
import { parseOciReference } from "../install/oci/reference.ts";
import { readBoundedTextSync } from "../platform/fs/read-bounded.ts";
import type { Context } from "../platform/io/context.ts";
import type { SecretSet } from "../platform/log/redact.ts";
import { checkTarget } from "./image-target.ts";
import { loadConfig } from "./read-cmdline.ts";

interface ImagePullOpts {
  to?: string;
  authFile?: string;
  mirror?: string;
  cmdline?: string;
  file?: string;
  json?: boolean;
}

/** The auth file: oci_configs' shape, readable by its owner only; its passwords registered as secrets. */
export async function readAuthFile(path: string, secrets: SecretSet): Promise<OciConfigs> {
  const st = await stat(path).catch(() => undefined);
  if (!st?.isFile()) throw new AgentError("usage", `image pull: --auth-file ${path}: no such file`, { path });
  if ((st.mode & 0o077) !== 0)
    throw new AgentError("usage", `image pull: --auth-file ${path}: mode ${(st.mode & 0o777).toString(8)} lets others read it: chmod 600 it first`, { path });
  let doc: unknown;
  try {
    doc = JSON.parse(readBoundedTextSync(path, "textFile"));
  } catch {
    throw new AgentError("usage", `image pull: --auth-file ${path}: not JSON (expected {"REGISTRY": {"username": "...", "password": "..."}}, as metal-boot's oci_configs)`, {
      path,
    });
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new AgentError("usage", `image pull: --auth-file ${path}: expected an object of registries`, { path });
  const out: Record<string, { username?: string; password?: string }> = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    const e = (v ?? {}) as Record<string, unknown>;
    if (typeof e.password === "string") secrets.add(e.password);
    if (typeof e.username !== "string" || typeof e.password !== "string")
      throw new AgentError("usage", `image pull: --auth-file ${path}: entry ${JSON.stringify(k)} needs a username and a password (strings)`, { path });
    out[k] = { username: e.username, password: e.password };
  }
  return out;
}

export function registerImagePull(image: Command, ctx: Context): void {
  image
    .command("pull <reference>")
    .description("install an oci://REGISTRY/REPOSITORY:TAG (or @sha256:DIGEST) image into --to as the flow does: this machine's platform, layers verified, whiteouts applied")
    .option("--to <dir>", "an existing, empty directory to unpack into")
    .option("--auth-file <path>", 'registry credentials as metal-boot\'s oci_configs: {"REGISTRY": {"username": ..., "password": ...}} (mode 600)')
    .option("--mirror <url>", "a pull-through mirror to ask first (https://HOST[:PORT]/, serving /v2/ with ?ns=REGISTRY), as the flow asks the image cache")
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline (METAL_CA, log level)")
    .option("--file <path>", "read the cmdline from this file")
    .option("--json", "print the result as JSON")
    .action(async (reference: string, opts: ImagePullOpts) => {
      parseOciReference(reference);
      const mirror = opts.mirror === undefined ? undefined : URL.canParse(opts.mirror) ? new URL(opts.mirror) : undefined;
      if (opts.mirror !== undefined && mirror?.protocol !== "https:")
        throw new AgentError("usage", `image pull: --mirror ${JSON.stringify(opts.mirror)}: expected an https:// URL`, {});
      const root = await checkTarget(opts.to, "image pull", "--to");
      const secrets = ctx.secrets;
      const ociConfigs = opts.authFile ? await readAuthFile(opts.authFile, secrets) : {};
      const config = await loadConfig(ctx.io, opts);
      const log = ctx.logger(config.logLevel, config.logFormat);
      const http = new HttpClient({ caBundle: config.caBundle, allowHttp: false, log, retry: { ...DEFAULT_RETRY, totalMs: config.retryWindowMs } });
      try {
        const r = await installOciImage({ http, reference, root, log, secrets, ociConfigs, ...(mirror ? { mirror } : {}) });
        if (opts.json) ctx.io.out(`${JSON.stringify({ ...r, root })}\n`);
        else
          ctx.io.out(
            `${r.reference}: ${r.manifest} from ${r.source}, ${r.layers.length} layer(s), ${r.bytes} bytes into ${root} in ${(r.ms / 1000).toFixed(2)} s, every sha256 verified; ${r.layers.reduce((n, l) => n + l.resumes, 0)} resume(s) by Range, ${r.layers.reduce((n, l) => n + l.whiteouts, 0)} path(s) whited out\n`,
          );
      } finally {
        await http.close();
      }
    });
}
