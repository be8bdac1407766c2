/**
 * Request validation as the real apiserver does it: connect-go's protovalidate
 * interceptor on every infra service (metal-stack/metal-apiserver@3f09705a
 * pkg/service/services.go:113 `validate.NewInterceptor()`, :140 allInfraInterceptors: after
 * authz, before the handler). The interceptor (connectrpc/validate-go@6d499032 validate.go
 * `validate`) answers a failed request with invalid_argument whose message is
 * protovalidate-go's ValidationError.Error() (bufbuild/protovalidate-go@f360e52
 * validation_error.go:29-48 and violation.go:52-76: "validation error: <path>: <message>" for
 * one violation, "validation errors:\n - ..." for several) and adds the buf.validate.Violations
 * as an error detail.
 *
 * The rules are the upstream ones: the protos compiled with `buf` (upstream-schema.ts) and
 * checked by @bufbuild/protovalidate, the same rule engine with CEL. A request decoded with
 * our proto/ subset is carried over to the upstream message by its binary encoding (same field
 * numbers: test/clients/api/contract.test.ts). Without the upstream protos the project's own rules
 * (fallback-rules.ts) stand in, with the same message shape.
 */
import { create, fromBinary, toBinary, type DescMessage, type Message, type MessageInitShape, type Registry } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createValidator, violationsToProto } from "@bufbuild/protovalidate";
import { ViolationsSchema } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { pathToString } from "@bufbuild/protobuf/reflect";
import { fallbackViolations } from "./fallback-rules.ts";
import type { ViolationLine } from "./violation-line.ts";
import { findUpstreamProtos, loadUpstreamRegistry, upstreamDescriptorSet } from "./upstream-schema.ts";

/** protovalidate-go's ValidationError.Error() (validation_error.go:29-48, violation.go:52-76). */
export function validationMessage(v: readonly ViolationLine[]): string {
  const one = (x: ViolationLine) => `${x.field ? `${x.field}: ` : ""}${x.message || `[${x.ruleId}]`}`;
  if (v.length === 1 && v[0]) return `validation error: ${one(v[0])}`;
  return `validation errors:${v.map((x) => `\n - ${one(x)}`).join("")}`;
}

export interface RequestValidator {
  /** "upstream": the upstream protos' rules by protovalidate; "fallback": fallback-rules.ts. */
  readonly source: "upstream" | "fallback";
  /** Why the fallback (undefined with upstream). */
  readonly reason: string | undefined;
  /** Throws invalid_argument as the real interceptor does; returns when the request is valid. */
  check(schema: DescMessage, message: Message): void;
}

function invalid(lines: readonly ViolationLine[], details: { desc: typeof ViolationsSchema; value: MessageInitShape<typeof ViolationsSchema> }[]): ConnectError {
  return new ConnectError(validationMessage(lines), Code.InvalidArgument, undefined, details);
}

/** protovalidate over `registry` (the upstream protos). */
export function upstreamValidator(registry: Registry): RequestValidator {
  const validator = createValidator({ registry });
  return {
    source: "upstream",
    reason: undefined,
    check(schema, message) {
      const theirs = registry.getMessage(schema.typeName);
      if (!theirs) throw new ConnectError(`${schema.typeName} is not in the upstream protos`, Code.Internal);
      const r = validator.validate(theirs, fromBinary(theirs, toBinary(schema, message)));
      if (r.kind === "valid") return;
      if (r.kind === "error") throw new ConnectError(`protovalidate: ${r.error.message}`, Code.Internal);
      const [violations] = violationsToProto(r.violations);
      const lines = r.violations.map((v) => ({ field: pathToString(v.field), message: v.message, ruleId: v.ruleId }));
      throw invalid(lines, [{ desc: ViolationsSchema, value: violations }]);
    },
  };
}

/** The project's own rules (fallback-rules.ts), when the upstream protos are not there. */
export function fallbackValidator(reason: string): RequestValidator {
  return {
    source: "fallback",
    reason,
    check(schema, message) {
      const lines = fallbackViolations(schema.typeName, message);
      if (lines.length === 0) return;
      const value = create(ViolationsSchema, {
        violations: lines.map((l) => ({ message: l.message, ruleId: l.ruleId, field: { elements: l.field.split(".").map((fieldName) => ({ fieldName })) } })),
      });
      throw invalid(lines, [{ desc: ViolationsSchema, value }]);
    },
  };
}

/**
 * The stand-in's validator: the upstream rules when the protos are found (compiled once,
 * cached under build/), else the fallback with one line on `say`; under CI=true a missing
 * reference is an error.
 */
export function requestValidator(say: (line: string) => void = (l) => process.stderr.write(`${l}\n`), env: NodeJS.ProcessEnv = process.env): RequestValidator {
  const found = findUpstreamProtos(env);
  if (typeof found === "string") {
    if (env.CI === "true") throw new Error(`apiserver stand-in: ${found}; under CI the upstream validation rules are required`);
    say(`apiserver stand-in: ${found}; validating with the project's own rules (lab/standins/fallback-rules.ts)`);
    return fallbackValidator(found);
  }
  return upstreamValidator(loadUpstreamRegistry(upstreamDescriptorSet(found)));
}
