/** One violation as protovalidate-go prints it (field path, message, rule id): what validation.ts and its fallback rules produce. */
export interface ViolationLine {
  readonly field: string;
  readonly message: string;
  readonly ruleId: string;
}
