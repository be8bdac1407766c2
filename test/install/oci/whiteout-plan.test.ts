import { describe, expect, test } from "bun:test";
import { WhiteoutError, WhiteoutPlanner } from "../../../src/install/oci/whiteout-plan.ts";

function plan(paths: string[]) {
  const p = new WhiteoutPlanner();
  for (const x of paths) p.add(x);
  const r = p.plan();
  return { actions: r.actions, keep: [...r.keep].sort() };
}

describe("OCI whiteouts as a plan over one layer", () => {
  test(".wh.NAME removes NAME from below; the marker's directory is kept", () => {
    expect(plan(["etc", "etc/.wh.motd", "usr/share/doc/.wh.README"])).toEqual({
      actions: [
        { op: "remove", path: "etc/motd" },
        { op: "remove", path: "usr/share/doc/README" },
      ],
      keep: ["", "etc", "usr", "usr/share", "usr/share/doc"],
    });
  });

  test("an opaque directory is pruned: what the layer wrote in it (and their ancestors) stays", () => {
    expect(plan(["etc/apt/.wh..wh..opq", "etc/apt/sources.list.d/local.list", "etc/apt"])).toEqual({
      actions: [{ op: "prune", dir: "etc/apt" }],
      keep: ["", "etc", "etc/apt", "etc/apt/sources.list.d", "etc/apt/sources.list.d/local.list"],
    });
    expect(plan([".wh..wh..opq", "only"]).actions).toEqual([{ op: "prune", dir: "" }]);
  });

  test("a whiteout of a path the layer wrote itself hides only what was below: a prune", () => {
    expect(plan(["opt/.wh.app", "opt/app/new"]).actions).toEqual([{ op: "prune", dir: "opt/app" }]);
  });

  test("AUFS metadata (.wh..wh.plnk) is neither applied nor kept as a file", () => {
    expect(plan([".wh..wh.plnk", ".wh..wh.plnk/123.456"])).toEqual({ actions: [], keep: [""] });
  });

  test("whiteouts naming no file, or climbing, are refused; members are bounded", () => {
    expect(() => plan(["etc/.wh."])).toThrow(new WhiteoutError('whiteout "etc/.wh." names no file'));
    expect(() => plan(["etc/.wh..."])).toThrow(new WhiteoutError('whiteout "etc/.wh..." names no file'));
    expect(() => plan(["../.wh.passwd"])).toThrow(new WhiteoutError('member "../.wh.passwd" climbs with ".."'));
    const small = new WhiteoutPlanner(2);
    small.add("a");
    small.add("b");
    expect(() => small.add("c")).toThrow(new WhiteoutError("more than 2 members in one layer"));
  });
});
