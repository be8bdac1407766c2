/**
 * The registry side of an OCI pull (distribution spec v1.1, "Pull"): manifests by tag or
 * digest, small blobs (the config) read whole, and the URL and headers of a layer blob
 * for the streaming path (image.ts streamPass). Authentication as registries do it: the
 * first request goes anonymous; a 401's `WWW-Authenticate` says how on: `Bearer` (the
 * token flow: a GET to the realm, with Basic credentials when oci_configs has some for
 * this registry, answers a token) or `Basic`. The password and the token never reach a
 * log line, an error or argv: they live in this object, and in the SecretSet when one
 * is given (every log line is scrubbed of its values).
 */
import { AgentError } from "../../platform/errors.ts";
import type { HttpClient, HttpResponse } from "../../clients/http/http-client.ts";
import type { Logger } from "../../platform/log/logger.ts";
import { logEvent } from "../../platform/log/logger.ts";
import type { SecretSet } from "../../platform/log/redact.ts";
import { parseChallenges, tokenUrl, type Challenge } from "./challenge.ts";
import type { OciCredentials } from "./credentials.ts";
import { MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, type Descriptor } from "./manifest.ts";
import { formatOciReference, type OciReference } from "./reference.ts";

/** A token answer is a few KiB (a JWT); more is not a token. */
const MAX_TOKEN_ANSWER_BYTES = 64 << 10;
/** Fresh tokens asked for during one pull (they expire after ~5 min at Docker Hub; a long layer may need a second). */
const MAX_REAUTH = 4;

export interface RegistryClientOptions {
  readonly http: HttpClient;
  readonly ref: OciReference;
  readonly credentials: OciCredentials | undefined;
  readonly log: Logger;
  readonly secrets?: SecretSet;
  /**
   * A pull-through mirror to ask instead of the registry (the partition's image cache):
   * its origin serves /v2/, and `?ns=REGISTRY` says which upstream (containerd's mirror
   * convention). Everything fetched by digest is verified as from the registry.
   */
  readonly mirror?: URL;
  /** One attempt per request (a mirror is tried once, then the registry): no retry window spent on it. */
  readonly once?: boolean;
}

export interface Fetched {
  readonly bytes: Uint8Array;
  readonly contentType: string | undefined;
}

export class RegistryClient {
  readonly #o: RegistryClientOptions;
  #authorization: string | undefined;
  #challenge: Challenge | undefined;
  #reauths = 0;

  constructor(o: RegistryClientOptions) {
    this.#o = o;
    if (o.credentials) o.secrets?.add(o.credentials.password);
  }

  /** host:port answering: the mirror's or the registry's. */
  get host(): string {
    return this.#o.mirror ? this.#o.mirror.host : this.#o.ref.registry;
  }

  #url(path: string): URL {
    const origin = this.#o.mirror ? this.#o.mirror.origin : `https://${this.#o.ref.registry}`;
    const u = new URL(`${origin}/v2/${this.#o.ref.repository}/${path}`);
    if (this.#o.mirror) u.searchParams.set("ns", this.#o.ref.registry);
    return u;
  }

  blobUrl(digest: string): URL {
    return this.#url(`blobs/${digest}`);
  }

  /** The Authorization of the last successful authentication (none while anonymous). */
  headers(): Readonly<Record<string, string>> {
    return this.#authorization ? { authorization: this.#authorization } : {};
  }

  async manifest(reference: string): Promise<Fetched> {
    const r = await this.#get(this.#url(`manifests/${reference}`), MANIFEST_ACCEPT, MAX_MANIFEST_BYTES, `manifest ${reference} of ${formatOciReference(this.#o.ref)}`);
    return { bytes: r.body, contentType: r.headers["content-type"] };
  }

  /** A small blob read whole (the image config): at most `cap` bytes, its sha256 verified (image_checksum naming it). */
  async smallBlob(d: Descriptor, cap: number, what: string): Promise<Uint8Array> {
    const r = await this.#get(this.blobUrl(d.digest), "*/*", cap, `${what} ${d.digest}`, true);
    const got = `sha256:${new Bun.CryptoHasher("sha256").update(r.body).digest("hex")}`;
    if (got !== d.digest) throw new AgentError("image_checksum", `${what} ${d.digest} of ${formatOciReference(this.#o.ref)}: its bytes hash to ${got}`, { digest: d.digest, got });
    return r.body;
  }

  /** A 401 during a layer: a fresh token when the registry uses tokens (bounded), else false (the credentials were refused). */
  async reauthenticate(): Promise<boolean> {
    if (this.#challenge?.scheme !== "bearer" || this.#reauths >= MAX_REAUTH) return false;
    this.#reauths++;
    await this.#authenticate(this.#challenge, "a layer");
    return true;
  }

  async #get(url: URL, accept: string, cap: number, what: string, followRedirects = false): Promise<HttpResponse> {
    let r = await this.#request(url, accept, cap, what, followRedirects);
    if (r.status === 401 && this.#authorization === undefined) {
      const header = r.headers["www-authenticate"] ?? "";
      const c = parseChallenges(header).find((x) => x.scheme === "bearer") ?? parseChallenges(header).find((x) => x.scheme === "basic");
      if (!c)
        throw new AgentError("auth", `${what}: ${this.host} answered 401 without a Bearer or Basic challenge (${JSON.stringify(header.slice(0, 100))})`, {
          registry: this.#o.ref.registry,
        });
      this.#challenge = c;
      await this.#authenticate(c, what);
      r = await this.#request(url, accept, cap, what, followRedirects);
    }
    if (r.status === 401 || r.status === 403) throw this.#refused(what, r.status);
    if (r.status !== 200) {
      throw new AgentError("oci_registry", `${what}: ${this.host} answered ${r.status}${errorWords(r.body)}`, { registry: this.#o.ref.registry, status: r.status });
    }
    return r;
  }

  async #request(url: URL, accept: string, cap: number, what: string, followRedirects: boolean): Promise<HttpResponse> {
    let at = url;
    for (let hop = 0; ; hop++) {
      const headers = hop === 0 ? { accept, ...this.headers() } : { accept };
      const r = await this.#o.http.request({ method: "GET", url: at, what, headers, maxBytes: cap, ...(this.#o.once ? { retry: false as const, serverErrorRetries: 0 } : {}) });
      const loc = r.headers.location;
      if (!followRedirects || ![301, 302, 303, 307, 308].includes(r.status) || loc === undefined || hop >= 3) return r;
      at = new URL(loc, at);
    }
  }

  #refused(what: string, status: number): AgentError {
    const who = this.#o.credentials ? `the credentials for ${this.#o.ref.registry} (oci_configs)` : `anonymous access (no oci_configs entry for ${this.#o.ref.registry})`;
    return new AgentError("auth", `${what}: ${this.host} answered ${status}: ${who} refused`, { registry: this.#o.ref.registry, status });
  }

  async #authenticate(c: Challenge, what: string): Promise<void> {
    const creds = this.#o.credentials;
    const basic = creds ? `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString("base64")}` : undefined;
    if (basic) this.#o.secrets?.add(basic.slice("Basic ".length));
    if (c.scheme === "basic") {
      if (!basic) throw this.#refused(what, 401);
      this.#authorization = basic;
      logEvent(this.#o.log, "install.oci.auth", { registry: this.#o.ref.registry, scheme: "basic" }, `oci: ${this.#o.ref.registry}: basic authentication`);
      return;
    }
    const url = tokenUrl(c, this.#o.ref.repository);
    if (!url) throw new AgentError("oci_registry", `${what}: ${this.#o.ref.registry}'s Bearer challenge has no usable realm`, { registry: this.#o.ref.registry });
    const r = await this.#o.http.request({
      method: "GET",
      url,
      what: `token for ${this.#o.ref.registry}`,
      headers: basic ? { authorization: basic } : {},
      maxBytes: MAX_TOKEN_ANSWER_BYTES,
    });
    if (r.status === 401 || r.status === 403) throw this.#refused(`token for ${what}`, r.status);
    if (r.status !== 200) throw new AgentError("oci_registry", `token for ${what}: ${url.host} answered ${r.status}`, { registry: this.#o.ref.registry, status: r.status });
    let token: unknown;
    try {
      const doc = JSON.parse(new TextDecoder().decode(r.body)) as Record<string, unknown>;
      token = doc.token ?? doc.access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== "string" || token === "") throw new AgentError("oci_registry", `token for ${what}: ${url.host} answered no token`, { registry: this.#o.ref.registry });
    this.#o.secrets?.add(token);
    this.#authorization = `Bearer ${token}`;
    logEvent(
      this.#o.log,
      "install.oci.auth",
      { registry: this.#o.ref.registry, scheme: "bearer", login: creds ? "oci_configs" : "anonymous" },
      `oci: ${this.#o.ref.registry}: token ${creds ? "with credentials" : "anonymous"}`,
    );
  }
}

/** The registry's error codes (`{"errors":[{"code":"MANIFEST_UNKNOWN",...}]}`), in words. Pure. */
function errorWords(body: Uint8Array): string {
  try {
    const doc = JSON.parse(new TextDecoder().decode(body)) as { errors?: { code?: unknown; message?: unknown }[] };
    const list = (doc.errors ?? []).map((e) => `${String(e.code)}${typeof e.message === "string" ? `: ${e.message.slice(0, 120)}` : ""}`);
    return list.length ? ` (${list.slice(0, 3).join("; ")})` : "";
  } catch {
    return "";
  }
}
