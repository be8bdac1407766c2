/**
 * The fragment is embedded by `bun build --compile`: the Makefile's binary, copied into
 * a temporary directory, checks a config from another working directory, with no
 * kernel-config/ next to it, and reports every option of the fragment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_FRAGMENT_TEXT } from "../../../src/kernel/kconfig/builtin-fragment.ts";
import { parseFragment } from "../../../src/kernel/kconfig/fragment.ts";
import { madeBinary } from "../../helpers/made-binary.ts";

describe("the compiled binary", () => {
  let dir = "";
  let binary = "";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "mh-kconfig-bin-"));
    binary = join(dir, "metal-hammer");
    // make rebuilds dist/metal-hammer when kernel-config/metal-hammer.config changed (mk/kconfig.mk).
    await copyFile(madeBinary(), binary);
  }, 120_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("embeds kernel-config/metal-hammer.config and exits 40 on a failing config", async () => {
    const entries = parseFragment(BUILTIN_FRAGMENT_TEXT, "embedded").entries;
    const good = entries.map((e) => (e.value === "n" ? `# CONFIG_${e.name} is not set` : `CONFIG_${e.name}=y`)).join("\n") + "\n";
    await writeFile(join(dir, "good.config"), good);
    await writeFile(join(dir, "ipv6m.config"), good.replace("CONFIG_IPV6=y", "CONFIG_IPV6=m"));

    const ok = Bun.spawnSync([binary, "kconfig", "check", "--config", "good.config", "--json"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(ok.exitCode).toBe(0);
    const report = JSON.parse(ok.stdout.toString());
    expect(report.fragment).toBe("kernel-config/metal-hammer.config");
    expect(report.results.map((r: { option: string }) => r.option)).toEqual(entries.map((e) => e.name));

    const bad = Bun.spawnSync([binary, "kconfig", "check", "--config", "ipv6m.config"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(bad.exitCode).toBe(40);
    expect(bad.stderr.toString()).toBe("metal-hammer: kernel config check failed: 1 requirement(s) not met: IPV6\n");
  });
});
