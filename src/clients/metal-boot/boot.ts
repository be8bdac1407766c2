/** What the boot stage (metal-boot) gives the rest of the flow; the token itself stays in `token` (never printed). */
import type { MetalConfig } from "./config-schema.ts";
import type { MachineToken } from "./machine-token.ts";
import type { UuidSource } from "./machine-uuid.ts";

export interface Boot {
  readonly uuid: string;
  readonly uuidSource: UuidSource;
  /** The partition Register sends: metal-boot's `partition`, else METAL_PARTITION. */
  readonly partition: string;
  readonly metalBootUrl: string;
  readonly apiserverUrl: URL;
  /** PEM from metal-boot's `ca` extension (trusted for the apiserver in addition to METAL_CA). */
  readonly apiserverCa: string | undefined;
  /** METAL_IMAGE_CACHE_URL, else metal-boot's `image_cache_url`; undefined: no cache. */
  readonly imageCacheUrl: URL | undefined;
  readonly ntpServers: readonly string[];
  /** metal-boot's `oci_configs`: registry -> username/password for oci:// images (secrets: registered, never logged; not in handoff.json, so absent after a resume). */
  readonly ociConfigs?: MetalConfig["oci_configs"];
  readonly token: MachineToken;
  readonly tokenFile: string;
}
