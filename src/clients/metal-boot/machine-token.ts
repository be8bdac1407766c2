/**
 * The machine token in memory: a holder that never prints its value (toString,
 * toJSON and inspection all show "[redacted]"); `reveal()` is the one way out,
 * used for the Authorization header and the 0600 token file.
 */
import { REDACTED } from "../../platform/log/redact.ts";
import { describeToken, type TokenInfo } from "./token.ts";

export class MachineToken {
  readonly #value: string;
  readonly info: TokenInfo;

  constructor(value: string) {
    this.#value = value;
    this.info = describeToken(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return REDACTED;
  }
}
