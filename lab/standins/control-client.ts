/**
 * A request to the apiserver stand-in's control endpoints (`/_standin/...`) from inside
 * the namespace it listens in, its TLS verified with the api CA named in the state dir's
 * standins.json (main.ts writes it). One Bun process per request: the caller runs in
 * another namespace. GET without `body`, else POST with it as JSON; the answer parsed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../ipxe/lab-process.ts";

const FETCH = `const [url, ca, ms, body] = process.argv.slice(1); const r = await fetch(url, { ...(body === undefined ? {} : { method: "POST", body }), tls: { ca: await Bun.file(ca).text() }, signal: AbortSignal.timeout(Number(ms)) }); process.stdout.write(await r.text());`;

export async function standinControl(nsExec: (argv: string[]) => string[], stateDir: string, path: string, opts: { body?: unknown; timeoutMs?: number } = {}): Promise<unknown> {
  const info = JSON.parse(readFileSync(join(stateDir, "standins.json"), "utf8")) as { urls: { api: string }; literalUrls?: { api: string }; apiCa: string };
  const argv = [
    process.execPath,
    "-e",
    FETCH,
    // By literal: the lab's own requests resolve no names (the certificate holds the address too).
    `${info.literalUrls?.api ?? info.urls.api}${path}`,
    info.apiCa,
    String(opts.timeoutMs ?? 10_000),
    ...(opts.body === undefined ? [] : [JSON.stringify(opts.body)]),
  ];
  return JSON.parse(await run(nsExec(argv)));
}
