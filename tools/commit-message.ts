/**
 * The house rule for commit messages (issue 38; docs/build.md "Commit messages"):
 * `area: what changed` in at most 72 characters, the area one of AREAS in one spelling
 * (lower case; `area/sub` for a part of one; `area, area` for a change of two), a blank line, then a body saying what and
 * why (and the figures measured). Git's own merge subjects pass as they are.
 *   bun tools/commit-message.ts FILE            the commit-msg hook (.githooks/commit-msg)
 *   bun tools/commit-message.ts --since COMMIT  every commit after COMMIT on HEAD (make check-commits)
 */

export const SUBJECT_MAX = 72;

/** The areas, named after the tree's folders and the docs' topics. */
export const AREAS: readonly string[] = [
  "agent",
  "api",
  "bench",
  "bmc",
  "build",
  "chain",
  "ci",
  "cli",
  "clients",
  "clock",
  "config",
  "deps",
  "disk",
  "dns",
  "docs",
  "e2e",
  "efi",
  "fleet",
  "flow",
  "gen",
  "handoff",
  "http",
  "image",
  "init",
  "initramfs",
  "install",
  "inventory",
  "ipxe",
  "iso",
  "kconfig",
  "kernel",
  "lab",
  "layout",
  "lldp",
  "log",
  "metal-boot",
  "net",
  "netlink",
  "network",
  "ops",
  "platform",
  "provision",
  "readme",
  "realos",
  "reboot",
  "remote-log",
  "src",
  "standins",
  "status",
  "test",
  "tools",
  "wait",
  "watchdog",
  "wipe",
];

/** What is wrong with one commit message (empty: nothing). Comment lines (`#`) are git's and do not count. */
export function commitMessageProblems(message: string): string[] {
  const lines = message.split("\n").filter((l) => !l.startsWith("#"));
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
  const subject = lines[0] ?? "";
  if (/^Merge (branch|remote-tracking branch|pull request|commit) /.test(subject)) return [];
  const problems: string[] = [];
  if (subject.trim() === "") return ["the subject line is empty"];
  if (subject.length > SUBJECT_MAX) problems.push(`the subject has ${subject.length} characters, at most ${SUBJECT_MAX}`);
  const m = /^([^:\s,]+(?:, [^:\s,]+)*): \S/.exec(subject);
  if (!m) problems.push('the subject does not start with "area: " (e.g. "install: ...", "lab, docs: ...")');
  else
    for (const area of (m[1] as string).split(", ")) {
      const top = area.split("/")[0] as string;
      if (area !== area.toLowerCase()) problems.push(`the area "${area}" is not in lower case (one spelling: "${area.toLowerCase()}")`);
      else if (!AREAS.includes(top)) problems.push(`the area "${top}" is not one of tools/commit-message.ts AREAS (${AREAS.join(", ")})`);
    }
  if (subject.endsWith(".")) problems.push("the subject ends with a full stop");
  if (lines.length > 1 && (lines[1] ?? "").trim() !== "") problems.push("the second line is not blank (subject, blank line, body)");
  if (!lines.slice(2).some((l) => l.trim() !== "")) problems.push("there is no body: say what changed and why, with the figures measured");
  return problems;
}

async function main(args: string[]): Promise<number> {
  if (args[0] === "--since" && args[1]) {
    const log = Bun.spawnSync(["git", "log", "--format=%H%x00%B%x01", `${args[1]}..HEAD`]);
    if (log.exitCode !== 0) {
      console.error(`commit-message: git log ${args[1]}..HEAD failed: ${log.stderr.toString().trim()}`);
      return 2;
    }
    let bad = 0;
    for (const entry of log.stdout.toString().split("\x01")) {
      const [hash, body] = entry.replace(/^\n/, "").split("\0");
      if (!hash || body === undefined) continue;
      const problems = commitMessageProblems(body);
      if (problems.length > 0) {
        bad++;
        console.error(`${hash.slice(0, 10)} ${body.split("\n")[0]}\n  ${problems.join("\n  ")}`);
      }
    }
    if (bad > 0) console.error(`commit-message: ${bad} commit(s) after ${args[1]} break the rule (tools/commit-message.ts)`);
    return bad > 0 ? 1 : 0;
  }
  if (args.length !== 1) {
    console.error("usage: bun tools/commit-message.ts FILE | --since COMMIT");
    return 2;
  }
  const problems = commitMessageProblems(await Bun.file(args[0] as string).text());
  for (const p of problems) console.error(`commit-msg: ${p}`);
  return problems.length > 0 ? 1 : 0;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
