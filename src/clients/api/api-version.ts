/**
 * The apiserver answers and its TLS is trusted: the public
 * metalstack.api.v2.VersionService/Get (visibility PUBLIC in
 * metal-stack-api proto/metalstack/api/v2/version.proto: no token needed). The token
 * itself is proven later by Register.
 */
import { VersionService } from "../../gen/metalstack/api/v2/version_pb.ts";
import type { ConnectClient } from "./connect-client.ts";
import { callUnary, procedureOf } from "./rpc.ts";

export const VERSION_GET = procedureOf(VersionService.method.get);

export interface ApiVersion {
  readonly version: string;
  readonly revision: string;
  readonly gitSha1: string;
  readonly buildDate: string;
  readonly latencyMs: number;
  readonly address: string | undefined;
  readonly attempts: number;
}

export async function apiVersion(api: Pick<ConnectClient, "unary">): Promise<ApiVersion> {
  const r = await callUnary(api, VersionService.method.get, {});
  const v = r.message.version;
  return {
    version: v?.version ?? "",
    revision: v?.revision ?? "",
    gitSha1: v?.gitSha1 ?? "",
    buildDate: v?.buildDate ?? "",
    latencyMs: r.latencyMs,
    address: r.address,
    attempts: r.attempts,
  };
}
