/**
 * What the log shows of an allocation (BootService/Wait). Pure. The allocation is
 * shown as protojson (toJson); fields whose name says secret (passwords, tokens,
 * keys) are redacted by redactFields, and user data (cloud-init, may embed anything)
 * is replaced by its length; every URL (the image's may be presigned) goes through
 * redactUrl. A few fields are lifted out for a one-line summary.
 */
import { toJson } from "@bufbuild/protobuf";
import { MachineAllocationSchema, type MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import { REDACTED, redactFields, redactUrl } from "../platform/log/redact.ts";

const USERDATA = /^user_?data$/i;
/** Strings that are URLs (the image URL may be presigned or carry userinfo): through redactUrl. */
const URL_STRING = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

function dropUserdata(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return URL_STRING.test(v) ? redactUrl(v) : v;
  if (v === null || typeof v !== "object" || depth > 12) return v;
  if (Array.isArray(v)) return v.map((x) => dropUserdata(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    out[k] = USERDATA.test(k) ? `${REDACTED} (${typeof x === "string" ? x.length : JSON.stringify(x ?? null).length} chars)` : dropUserdata(x, depth + 1);
  return out;
}

export function redactAllocation(allocation: MachineAllocation): Record<string, unknown> {
  return redactFields(dropUserdata(toJson(MachineAllocationSchema, allocation))) as Record<string, unknown>;
}

const str = (v: string | undefined): string | null => (v !== undefined && v !== "" ? v : null);

export interface AllocationSummary {
  readonly hostname: string | null;
  readonly project: string | null;
  readonly image: string | null;
  readonly imageUrl: string | null;
  readonly filesystemLayout: string | null;
}

export function summarizeAllocation(a: MachineAllocation): AllocationSummary {
  return {
    hostname: str(a.hostname),
    project: str(a.project),
    image: str(a.image?.id),
    imageUrl: a.image?.url ? redactUrl(a.image.url) : null,
    filesystemLayout: str(a.filesystemLayout?.id),
  };
}
