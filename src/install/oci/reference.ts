/**
 * `oci://REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]` image URLs, as metal-hammer PR #175
 * names them (the `oci://` prefix on the image URL). The grammar of the name parts is the
 * distribution reference grammar (distribution/reference regexp.go: path components of
 * lowercase alphanumerics joined by `.`, `_`, `__` or dashes; a tag of at most 128 word
 * characters, dots and dashes). A reference with a digest is pinned: the digest is what is
 * fetched and verified, the tag then only a label. No default registry (docker.io) and no
 * default tag: an image URL names both, or is refused. Pure.
 */
import { AgentError } from "../../platform/errors.ts";

export interface OciReference {
  /** host or host:port, as written (the registry's API is https://REGISTRY/v2/). */
  readonly registry: string;
  readonly repository: string;
  readonly tag: string | undefined;
  /** `sha256:<64 hex>` when pinned. */
  readonly digest: string | undefined;
}

export const OCI_SCHEME = "oci://";

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
export const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;
/** distribution's limit for a repository name. */
const MAX_REPOSITORY = 255;

export function isOciUrl(s: string): boolean {
  return s.startsWith(OCI_SCHEME);
}

/** The reference in an `oci://` URL, or usage naming what is wrong. */
export function parseOciReference(url: string): OciReference {
  // userinfo in the authority (oci://user:pw@host/...) is never echoed: credentials come from oci_configs only.
  const shown = url.slice(0, 300).replace(/^(oci:\/\/)[^/]*@/, "$1[redacted]@");
  const bad = (why: string): never => {
    throw new AgentError("usage", `image ${JSON.stringify(shown)}: ${why} (expected oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST)`, { image: shown });
  };
  if (!isOciUrl(url)) bad("not an oci:// URL");
  let rest = url.slice(OCI_SCHEME.length);
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!SHA256_DIGEST.test(digest)) bad(`the digest ${JSON.stringify(digest.slice(0, 80))} is not sha256:<64 lowercase hex>`);
  }
  const slash = rest.indexOf("/");
  if (slash < 0) bad("no repository after the registry");
  const registry = rest.slice(0, slash);
  if (!HOST.test(registry)) bad(`the registry ${JSON.stringify(registry.slice(0, 80))} is not a host name or host:port`);
  let path = rest.slice(slash + 1);
  let tag: string | undefined;
  const colon = path.lastIndexOf(":");
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) bad(`the tag ${JSON.stringify(tag.slice(0, 80))} is not a tag (word characters, dots, dashes, at most 128)`);
  }
  if (tag === undefined && digest === undefined) bad("neither a tag nor a digest");
  if (path.length === 0 || path.length > MAX_REPOSITORY) bad(`the repository must have 1 to ${MAX_REPOSITORY} characters`);
  for (const c of path.split("/")) if (!COMPONENT.test(c)) bad(`the repository component ${JSON.stringify(c.slice(0, 80))} is not lowercase alphanumerics joined by . _ __ or -`);
  return { registry, repository: path, tag, digest };
}

/** What the manifest request asks for: the digest when pinned, else the tag. Pure. */
export function manifestRef(r: OciReference): string {
  return r.digest ?? (r.tag as string);
}

/** The reference as written back (for log lines and errors). Pure. */
export function formatOciReference(r: OciReference): string {
  return `${OCI_SCHEME}${r.registry}/${r.repository}${r.tag !== undefined ? `:${r.tag}` : ""}${r.digest !== undefined ? `@${r.digest}` : ""}`;
}
