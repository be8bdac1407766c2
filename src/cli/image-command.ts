/**
 * `metal-hammer image install <url> --target DIR`: the flow's image install by hand, for
 * the debug shell (and the fleet bench, whose machines have no disks): the same
 * installImage (one stream, hashed inline, decoded by liblz4 into GNU tar, resumed by Range, stall and
 * trickle guards, the retry bound with jitter) with the same HTTP client rules as `run`
 * (METAL_CA from the cmdline; https only, plain http only with METAL_ALLOW_HTTP=1 on the
 * cmdline, as every command that talks to a server). A checksum sidecar beside the image
 * is required (as in the flow). The target must be an existing, empty directory (a
 * fresh filesystem's lost+found aside): a restart from byte 0 or a checksum mismatch
 * empties it, as the flow's fresh filesystems are emptied. Exits as the flow's install stage does
 * (exit-codes.ts: 50 download, 51 checksum, 52 unpack, 53 disk full; 2 for bad input).
 */
import type { Command } from "commander";
import { AgentError } from "../platform/errors.ts";
import { exitCodeFor } from "../platform/exit-codes.ts";
import { HttpClient } from "../clients/http/http-client.ts";
import { DEFAULT_RETRY } from "../clients/http/retry.ts";
import { installImage } from "../install/image.ts";
import { redactUrl } from "../platform/log/redact.ts";
import type { Context } from "../platform/io/context.ts";
import { registerImagePull } from "./image-pull.ts";
import { checkTarget } from "./image-target.ts";
import { loadConfig } from "./read-cmdline.ts";

interface ImageInstallOpts {
  target?: string;
  cmdline?: string;
  file?: string;
  json?: boolean;
}

/** The image URL from the command line: absolute http(s), else a usage error naming it. */
export function parseImageUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AgentError("usage", `image install: ${JSON.stringify(text)} is not a URL: expected an absolute https:// URL of an img.tar.lz4`, {});
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new AgentError("usage", `image install: ${redactUrl(url)}: expected an https:// URL (http:// only with METAL_ALLOW_HTTP=1 on the cmdline)`, {});
  }
  return url;
}

export function registerImage(program: Command, ctx: Context): void {
  const image = program.command("image").description("OS images: install one into a directory as the flow does (a tar.lz4 URL, or oci:// from a registry)");
  image
    .command("install <url>")
    .description(
      `stream an img.tar.lz4 into --target as the flow does (checksum sidecar required, resumed by Range); exit ${exitCodeFor("image_download")}-${exitCodeFor("disk_full")} as the install stage`,
    )
    .option("--target <dir>", "an existing directory to unpack into")
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline (METAL_CA, METAL_ALLOW_HTTP, log level)")
    .option("--file <path>", "read the cmdline from this file")
    .option("--json", "print the result as JSON")
    .action(async (text: string, opts: ImageInstallOpts) => {
      const url = parseImageUrl(text);
      const root = await checkTarget(opts.target);
      const config = await loadConfig(ctx.io, opts);
      // Before anything is fetched (the sidecars' GETs would report it as a download failure).
      if (url.protocol === "http:" && !config.allowHttp)
        throw new AgentError("usage", `image install: ${redactUrl(url)}: plain http is refused unless METAL_ALLOW_HTTP=1 is on the kernel cmdline`, {});
      const log = ctx.logger(config.logLevel, config.logFormat);
      const http = new HttpClient({ caBundle: config.caBundle, allowHttp: config.allowHttp, log, retry: { ...DEFAULT_RETRY, totalMs: config.retryWindowMs } });
      try {
        const r = await installImage({ http, url, root, log });
        const out = { ...r, root };
        if (opts.json) ctx.io.out(JSON.stringify(out) + "\n");
        else
          ctx.io.out(
            `${r.url}: ${r.bytes} bytes into ${root} in ${(r.ms / 1000).toFixed(2)} s, ${r.checksum.algo} verified; ${r.resumes} resume(s) by Range, ${r.restarts} restart(s) from byte 0, ${r.passes} pass(es)\n`,
          );
      } finally {
        await http.close();
      }
    });
  registerImagePull(image, ctx);
}
