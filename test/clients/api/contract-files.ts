/** The generated files of the contract subset, and where the upstream reference lives. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DescFile } from "@bufbuild/protobuf";
import { file_metalstack_api_v2_common } from "../../../src/gen/metalstack/api/v2/common_pb.ts";
import { file_metalstack_api_v2_filesystem } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { file_metalstack_api_v2_health } from "../../../src/gen/metalstack/api/v2/health_pb.ts";
import { file_metalstack_api_v2_image } from "../../../src/gen/metalstack/api/v2/image_pb.ts";
import { file_metalstack_api_v2_machine } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { file_metalstack_api_v2_network } from "../../../src/gen/metalstack/api/v2/network_pb.ts";
import { file_metalstack_api_v2_partition } from "../../../src/gen/metalstack/api/v2/partition_pb.ts";
import { file_metalstack_api_v2_version } from "../../../src/gen/metalstack/api/v2/version_pb.ts";
import { file_metalstack_infra_v2_boot } from "../../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { file_metalstack_infra_v2_event } from "../../../src/gen/metalstack/infra/v2/event_pb.ts";

export const REPO = join(import.meta.dir, "../../..");
export const FINGERPRINT = join(REPO, "test/fixtures/contract/reference-shape.json");

export const GENERATED: readonly DescFile[] = [
  file_metalstack_api_v2_common,
  file_metalstack_api_v2_filesystem,
  file_metalstack_api_v2_health,
  file_metalstack_api_v2_image,
  file_metalstack_api_v2_machine,
  file_metalstack_api_v2_network,
  file_metalstack_api_v2_partition,
  file_metalstack_api_v2_version,
  file_metalstack_infra_v2_boot,
  file_metalstack_infra_v2_event,
];

/**
 * ../shared/reference/metal-stack-api/proto next to the repository (or above a worktree),
 * or METAL_API_REFERENCE; undefined when none is there.
 */
export function referenceDir(env = process.env): string | undefined {
  if (env.METAL_API_REFERENCE) return env.METAL_API_REFERENCE;
  for (let d = dirname(REPO); d !== dirname(d); d = dirname(d)) {
    const p = join(d, "shared/reference/metal-stack-api/proto");
    if (existsSync(p)) return p;
  }
  return undefined;
}
