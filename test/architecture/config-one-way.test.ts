/**
 * Configuration reaches the stages one way (issue 25): each stage takes the parsed
 * `Config` (or the part it needs) as its input and hands what it decides to the service
 * it calls (`s.disks.wipe(config.wipe, log)`, `s.selectNics(config.nics)`). The flow's
 * services (`Services`, src/agent/services.ts) carry I/O, not configuration, so
 * no fact comes in by two doors. This reads the sources and fails when
 * - `Services` declares a field named like a `Config` field (a configuration fact
 *   riding on the services, as `console` and the disks' wipe `mode` once did), or
 * - the composition root (src/agent/compose.ts) reads a `Config` field other than the
 *   HTTP client's settings (its CA bundle, http allowed, retry window: a service
 *   setting no stage decides).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SRC = join(import.meta.dir, "../../src");
const read = (p: string) => readFileSync(join(SRC, p), "utf8");

/** What compose.ts may read from the configuration: the HTTP client's construction. */
const COMPOSE_READS = ["allowHttp", "caBundle", "retryWindowMs"];

/** The fields of `export interface NAME {` in `text` (two-space indented `readonly name:` lines). */
function interfaceFields(text: string, name: string): string[] {
  const start = text.indexOf(`export interface ${name} {`);
  if (start < 0) throw new Error(`no \`export interface ${name} {\``);
  const body = text.slice(start, text.indexOf("\n}", start));
  return [...body.matchAll(/^ {2}readonly (\w+)\??:/gm)].map((m) => m[1]!);
}

/** The `config.X` reads in `text`, outside comments. */
function configReads(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...new Set([...code.matchAll(/(?<![\w/.])config\.(\w+)/g)].map((m) => m[1]!))].sort();
}

describe("configuration reaches the stages one way", () => {
  const configFields = interfaceFields(read("config/config.ts"), "Config");
  const serviceFields = interfaceFields(read("agent/services.ts"), "Services");

  test("the readers see the two interfaces", () => {
    expect(configFields).toContain("wipe");
    expect(configFields).toContain("console");
    expect(serviceFields).toContain("disks");
    expect(serviceFields).toContain("manufacturer");
  });

  test("Services carries no configuration field: a stage reads it from its config input", () => {
    expect(serviceFields.filter((f) => configFields.includes(f))).toEqual([]);
  });

  test("the composition root reads from the configuration only what builds the HTTP client", () => {
    expect(configReads(read("agent/compose.ts"))).toEqual(COMPOSE_READS);
  });

  test("the readers see what a side door would look like", () => {
    expect(interfaceFields("export interface Services {\n  readonly console: string;\n  readonly ops?: Operations;\n}\n", "Services")).toEqual(["console", "ops"]);
    expect(configReads('import { x } from "../config/config.ts";\n// config.nics\nselectNics: () => selectNics({ selectors: config.nics }),\n/* config.wipe */')).toEqual(["nics"]);
  });
});
