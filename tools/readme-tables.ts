/**
 * The README's parameter and exit-code tables are generated from the code's own
 * tables, between marker comments. `bun tools/readme-tables.ts --write` updates
 * README.md; test/docs/readme.test.ts fails when they drift.
 */
import { PARAMS } from "../src/config/params.ts";
import { EXIT_CODES } from "../src/exit-codes.ts";

export function paramsTable(): string {
  const rows = Object.entries(PARAMS).map(([k, v]) => `| \`${k}\` | ${v.default} | ${v.doc} |`);
  return ["| parameter | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

export function exitCodesTable(): string {
  const rows = Object.entries(EXIT_CODES).map(([k, v]) => `| ${v.exit} | \`${k}\` | ${v.meaning} |`);
  return ["| exit | code | meaning |", "|---|---|---|", ...rows].join("\n");
}

export function fillTables(readme: string): string {
  const fill = (text: string, name: string, body: string) => {
    const re = new RegExp(`(<!-- ${name}:begin -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`);
    if (!re.test(text)) throw new Error(`README.md lacks the <!-- ${name}:begin/end --> markers`);
    return text.replace(re, (_m, a: string, b: string) => `${a}${body}\n${b}`);
  };
  return fill(fill(readme, "params", paramsTable()), "exit-codes", exitCodesTable());
}

if (import.meta.main) {
  const path = new URL("../README.md", import.meta.url).pathname;
  const before = await Bun.file(path).text();
  const after = fillTables(before);
  if (process.argv.includes("--write")) await Bun.write(path, after);
  else if (after !== before) {
    console.error("README.md tables are out of date: run `bun tools/readme-tables.ts --write`");
    process.exit(1);
  }
}
