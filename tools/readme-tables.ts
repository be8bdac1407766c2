/**
 * The README's parameter and exit-code tables and docs/events.md are generated from
 * the code's own tables (README: between marker comments). `bun tools/readme-tables.ts
 * --write` updates both; test/docs/readme.test.ts fails when they drift.
 */
import { PARAMS } from "../src/config/params.ts";
import { EVENTS } from "../src/platform/log/events.ts";
import { EXIT_CODES } from "../src/exit-codes.ts";

export function paramsTable(): string {
  const rows = Object.entries(PARAMS).map(([k, v]) => `| \`${k}\` | ${v.default} | ${v.doc} |`);
  return ["| parameter | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

export function exitCodesTable(): string {
  const rows = Object.entries(EXIT_CODES).map(([k, v]) => `| ${v.exit} | \`${k}\` | ${v.meaning} |`);
  return ["| exit | code | meaning |", "|---|---|---|", ...rows].join("\n");
}

/** docs/events.md: the whole event vocabulary, one row per event. */
export function eventsDoc(): string {
  const rows = Object.entries(EVENTS).map(([k, v]) => `| \`${k}\` | ${v} |`);
  return [
    "# Log events",
    "",
    "Every log line carries one `event` from this vocabulary (`src/platform/log/events.ts`; this page is",
    "generated from it by `make docs`), so a serial console can be searched with",
    '`grep \'"event":"net.dad.failed"\'`.',
    "",
    "| event | meaning |",
    "|---|---|",
    ...rows,
    "",
  ].join("\n");
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
  const readmePath = new URL("../README.md", import.meta.url).pathname;
  const eventsPath = new URL("../docs/events.md", import.meta.url).pathname;
  const readme = await Bun.file(readmePath).text();
  const events = (await Bun.file(eventsPath).exists()) ? await Bun.file(eventsPath).text() : "";
  const wanted = [
    { path: readmePath, before: readme, after: fillTables(readme) },
    { path: eventsPath, before: events, after: eventsDoc() },
  ];
  if (process.argv.includes("--write")) for (const w of wanted) await Bun.write(w.path, w.after);
  else if (wanted.some((w) => w.after !== w.before)) {
    console.error("README.md tables or docs/events.md are out of date: run `make docs`");
    process.exit(1);
  }
}
