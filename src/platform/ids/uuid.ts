/**
 * The one UUID rule: what the apiserver takes as a machine uuid, protovalidate's
 * string.uuid (metal-stack/api@e6201fcb proto/metalstack/infra/v2/boot.proto:52
 * `(buf.validate.field).string.uuid = true`; bufbuild/protovalidate@4baed765
 * proto/protovalidate/buf/validate/validate.proto:3493: 8-4-4-4-12 hex digits, either
 * case). The agent's own form is lower case (what DMI and the apiserver's answers
 * show). Pure.
 */
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** What an error says was expected. */
export const UUID_EXPECTED = "a machine UUID (8-4-4-4-12 hex digits)";

/** Whether `s` is a UUID as the apiserver's string.uuid rule wants it (either case, no spaces). */
export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** `s` in the agent's form (lower case), or undefined when it is not a UUID. */
export function normaliseUuid(s: string): string | undefined {
  return isUuid(s) ? s.toLowerCase() : undefined;
}
