/**
 * Which of metal-boot's `oci_configs` (pixie PR #40: a map from registry URL to
 * username and password, metal-stack/pixie PR #40, branch oci-puller at 219bcc2: api/api.go:17 OciConfigs,
 * pixiecore/cli/grpccmd.go:256 keyed by RegistryURL) applies to an image: the key with
 * its scheme and trailing slashes dropped is the registry (host[:port]) or a prefix of
 * REGISTRY/REPOSITORY at a path boundary; the longest such key wins. Pure.
 */
import type { OciReference } from "./reference.ts";

export interface OciCredentials {
  readonly username: string;
  readonly password: string;
}

export type OciConfigs = Readonly<Record<string, { readonly username?: string | undefined; readonly password?: string | undefined } | null | undefined>>;

export function normaliseRegistryKey(key: string): string {
  return key
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")
    .replace(/\/+$/, "")
    .toLowerCase();
}

export function credentialsFor(configs: OciConfigs | undefined, ref: OciReference): OciCredentials | undefined {
  if (!configs) return undefined;
  const image = `${ref.registry}/${ref.repository}`.toLowerCase();
  let best: { len: number; creds: OciCredentials } | undefined;
  for (const [key, v] of Object.entries(configs)) {
    const k = normaliseRegistryKey(key);
    if (k === "" || !v?.username || v.password === undefined) continue;
    if (image !== k && !image.startsWith(`${k}/`)) continue;
    if (!best || k.length > best.len) best = { len: k.length, creds: { username: v.username, password: v.password } };
  }
  return best?.creds;
}
