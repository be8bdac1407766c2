/**
 * Parses a kernel .config as scripts/kconfig writes it (confdata.c): `CONFIG_X=y|m|n`,
 * `CONFIG_X="string"` (backslash escapes), `CONFIG_X=123`, `CONFIG_X=0x1f`,
 * `# CONFIG_X is not set`, other `#` comments and blank lines. Anything else is an
 * error naming the line, so a truncated or wrong file never passes silently. Pure.
 */
import { AgentError } from "../../platform/errors.ts";

export const CONFIG_PREFIX = "CONFIG_";

export type ValueKind = "y" | "m" | "n" | "string" | "int" | "hex";

export interface ConfigValue {
  readonly kind: ValueKind;
  /** y, m or n for tristates; the unquoted string; the number as written. */
  readonly value: string;
  /** 1-based line of the (last) definition. */
  readonly line: number;
}

export interface DotConfig {
  readonly source: string;
  /** Option name without the CONFIG_ prefix -> value; a later line wins, as in conf. */
  readonly options: ReadonlyMap<string, ConfigValue>;
}

const NAME = "[A-Za-z0-9_]+";
/** `CONFIG_X=value`: the option name and the raw value. Shared with the fragment parser (fragment.ts). */
export const ASSIGN = new RegExp(`^${CONFIG_PREFIX}(${NAME})=(.*)$`);
/** `# CONFIG_X is not set`. */
export const NOT_SET = new RegExp(`^# ${CONFIG_PREFIX}(${NAME}) is not set$`);

function inputError(source: string, line: number, message: string): AgentError {
  return new AgentError("kconfig_input", `${source}:${line}: ${message}`, { source, line });
}

/** Unquotes a Kconfig string value ("a \"b\" \\ c"), or returns undefined when it is not one. */
export function unquote(raw: string): string | undefined {
  if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw[i] as string;
    if (c === '"') return undefined; // an unescaped quote inside
    if (c === "\\") {
      i++;
      if (i >= raw.length - 1) return undefined; // the backslash escapes the closing quote
      out += raw[i];
    } else {
      out += c;
    }
  }
  return out;
}

export function parseValue(raw: string): { kind: ValueKind; value: string } | undefined {
  if (raw === "y" || raw === "m" || raw === "n") return { kind: raw, value: raw };
  if (/^-?[0-9]+$/.test(raw)) return { kind: "int", value: raw };
  if (/^0[xX][0-9a-fA-F]+$/.test(raw)) return { kind: "hex", value: raw };
  const s = unquote(raw);
  return s === undefined ? undefined : { kind: "string", value: s };
}

export function parseDotConfig(text: string, source: string): DotConfig {
  const options = new Map<string, ConfigValue>();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  // One regex per line, chosen by the first character (PID 1 parses the running kernel's ~10 000 lines at boot).
  for (let i = 0; i < lines.length; i++) {
    const rawLine = lines[i] as string;
    const lineNo = i + 1;
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line.startsWith("#")) {
      const notSet = NOT_SET.exec(line);
      if (notSet) options.set(notSet[1] as string, { kind: "n", value: "n", line: lineNo });
      continue;
    }
    if (line.trim() === "") continue;
    const assign = ASSIGN.exec(line);
    if (!assign) {
      throw inputError(
        source,
        lineNo,
        `expected ${CONFIG_PREFIX}NAME=value, "# ${CONFIG_PREFIX}NAME is not set", a # comment or a blank line, got ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    const name = assign[1] as string;
    const value = parseValue(assign[2] as string);
    if (!value) {
      throw inputError(
        source,
        lineNo,
        `${CONFIG_PREFIX}${name}: expected y, m, n, a decimal or 0x number, or a "quoted string", got ${JSON.stringify((assign[2] as string).slice(0, 80))}`,
      );
    }
    options.set(name, { kind: value.kind, value: value.value, line: lineNo });
  }
  if (options.size === 0) {
    throw new AgentError("kconfig_input", `${source}: no ${CONFIG_PREFIX} lines: not a kernel .config`, { source });
  }
  return { source, options };
}
