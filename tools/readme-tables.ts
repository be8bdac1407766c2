/**
 * The generated documentation, from the code's own tables: README.md's short parameter
 * and exit-code tables (between marker comments), and the whole pages
 * docs/parameters.md, docs/exit-codes.md and docs/events.md. `bun tools/readme-tables.ts
 * --write` (`make docs`) updates them; test/docs/readme.test.ts fails when they drift.
 */
import { PARAMS } from "../src/config/params.ts";
import { EVENTS } from "../src/platform/log/events.ts";
import { EXIT_CODES } from "../src/platform/exit-codes.ts";

/** README: each parameter with its default and its brief; the whole text is in docs/parameters.md. */
export function paramsTable(): string {
  const rows = Object.entries(PARAMS).map(([k, v]) => `| \`${k}\` | ${v.default} | ${v.brief} |`);
  return ["| parameter | default | what |", "|---|---|---|", ...rows].join("\n");
}

/** README: the exit codes by tens (one row per area), each with its code name; the meanings are in docs/exit-codes.md. */
export function exitCodesTable(): string {
  const byTen = new Map<number, string[]>();
  for (const [k, v] of Object.entries(EXIT_CODES).sort(([, a], [, b]) => a.exit - b.exit)) {
    const ten = Math.floor(v.exit / 10) * 10;
    byTen.set(ten, [...(byTen.get(ten) ?? []), `${v.exit} \`${k}\``]);
  }
  const rows = [...byTen].sort(([a], [b]) => a - b).map(([ten, codes]) => `| ${ten === 0 ? "0-9" : `${ten}-${ten + 9}`} | ${codes.join(", ")} |`);
  return ["| exits | code names |", "|---|---|", ...rows].join("\n");
}

/** docs/parameters.md: how the cmdline is parsed, then every parameter with its whole text. */
export function parametersDoc(): string {
  // The texts link as from the repository's top (`docs/bounds.md`); this page is in docs/.
  const rows = Object.entries(PARAMS).map(([k, v]) => `| \`${k}\` | ${v.default} | ${v.doc.replaceAll("](docs/", "](")} |`);
  return [
    "# Kernel cmdline parameters",
    "",
    "Every parameter the agent reads (`src/config/params.ts`; this page is generated from it",
    "by `make docs`). The cmdline is parsed exactly as the kernel splits it (quotes group,",
    "the last duplicate wins, `--` ends kernel parameters, unknown keys are kept aside and",
    "ignored). A bad value stops with exit code 2 and one line naming the parameter, the",
    'value and what was expected, e.g. `METAL_NET_TIMEOUT="abc": expected a duration like',
    "90s or 2m`. Booleans take `1/0`, `true/false`, `yes/no`, `on/off` or the bare flag;",
    "durations `500ms`, `90s`, `2m`, `1h` or bare seconds.",
    "",
    "| parameter | default | meaning |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

/** docs/exit-codes.md: every exit code with its meaning. */
export function exitCodesDoc(): string {
  const rows = Object.entries(EXIT_CODES).map(([k, v]) => `| ${v.exit} | \`${k}\` | ${v.meaning} |`);
  return [
    "# Exit codes",
    "",
    "One table for every command and for PID 1's flow (`src/platform/exit-codes.ts`; this page is",
    "generated from it by `make docs`). An error's log line carries the code name as",
    "`code`; the exit status is its number.",
    "",
    "| exit | code | meaning |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
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

/** Each generated page of docs/ and what it must hold. */
export const GENERATED_DOCS: Readonly<Record<string, () => string>> = {
  "docs/events.md": eventsDoc,
  "docs/parameters.md": parametersDoc,
  "docs/exit-codes.md": exitCodesDoc,
};

if (import.meta.main) {
  const at = (p: string) => new URL(`../${p}`, import.meta.url).pathname;
  const read = async (p: string) => ((await Bun.file(at(p)).exists()) ? await Bun.file(at(p)).text() : "");
  const readme = await read("README.md");
  const wanted = [
    { path: at("README.md"), before: readme, after: fillTables(readme) },
    ...(await Promise.all(Object.entries(GENERATED_DOCS).map(async ([p, make]) => ({ path: at(p), before: await read(p), after: make() })))),
  ];
  if (process.argv.includes("--write")) for (const w of wanted) await Bun.write(w.path, w.after);
  else if (wanted.some((w) => w.after !== w.before)) {
    console.error("README.md tables or the generated docs/ pages are out of date: run `make docs`");
    process.exit(1);
  }
}
