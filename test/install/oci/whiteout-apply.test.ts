import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyWhiteouts } from "../../../src/install/oci/whiteout-apply.ts";
import { WhiteoutPlanner } from "../../../src/install/oci/whiteout-plan.ts";

const base = mkdtempSync(join(tmpdir(), "mh-whiteout-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function planOf(paths: string[]) {
  const p = new WhiteoutPlanner();
  for (const x of paths) p.add(x);
  return p.plan();
}

/** A target root and, beside it, a host directory the image's links point at. */
function fixture() {
  const dir = mkdtempSync(join(base, "case-"));
  const root = join(dir, "root");
  const host = join(dir, "host");
  mkdirSync(join(root, "usr/lib/app"), { recursive: true });
  mkdirSync(host);
  writeFileSync(join(host, "victim"), "host file\n");
  writeFileSync(join(root, "victim"), "image file\n");
  writeFileSync(join(root, "usr/lib/app/old"), "old\n");
  writeFileSync(join(root, "usr/lib/app/new"), "new\n");
  return { root, host };
}

describe("whiteouts applied inside the target", () => {
  test("a whiteout through an absolute link of the image (/etc -> HOST) is resolved inside the target: the host's file stays", () => {
    const { root, host } = fixture();
    symlinkSync(host, join(root, "etc"));
    const r = applyWhiteouts(root, planOf(["etc/.wh.victim"]));
    expect(readdirSync(host)).toEqual(["victim"]);
    // /etc -> HOST resolved inside the root is ROOT/HOST: not there, nothing removed.
    expect(r.removed).toBe(0);
    expect(existsSync(join(root, "victim"))).toBe(true);
  });

  test("'..' in a link cannot climb out either: an opaque directory behind /up -> ../../.. prunes the target's root only", () => {
    const { root, host } = fixture();
    symlinkSync("../../..", join(root, "up"));
    applyWhiteouts(root, planOf(["up/.wh..wh..opq", "up/usr/lib/app/new"]));
    expect(readdirSync(host)).toEqual(["victim"]);
    // up resolves to the root itself: everything the layer did not write is gone, what it wrote stays.
    expect(readdirSync(root).sort()).toEqual(["usr"]);
    expect(readdirSync(join(root, "usr/lib/app"))).toEqual(["new"]);
  });

  test("a relative link inside the image is followed (merged /lib -> usr/lib); the last component is removed, not followed", () => {
    const { root, host } = fixture();
    symlinkSync("usr/lib", join(root, "lib"));
    symlinkSync(host, join(root, "usr/lib/app/to-host"));
    const r = applyWhiteouts(root, planOf(["lib/app/.wh.old", "lib/app/.wh.to-host"]));
    expect(r.removed).toBe(2);
    expect(readdirSync(join(root, "usr/lib/app"))).toEqual(["new"]);
    expect(readdirSync(host)).toEqual(["victim"]);
  });

  test("a whiteout of something not there (no parent, or no file) is nothing to do", () => {
    const { root } = fixture();
    expect(applyWhiteouts(root, planOf(["no/such/.wh.dir", ".wh.nothing", "missing/.wh..wh..opq"])).removed).toBe(0);
  });
});
