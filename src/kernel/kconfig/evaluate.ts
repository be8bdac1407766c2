/**
 * Checks a parsed .config against the fragment, option by option. A failure in a
 * required or must-not class fails the check; a miss in the recommended class is a
 * warning. `=m` satisfies a y-or-m option only when every module the fragment names
 * for it is in the initramfs module set; without a module set it counts as present
 * and the result says it was not verified. Pure.
 */
import type { DotConfig } from "./dotconfig.ts";
import type { Fragment, FragmentEntry, OptionClass } from "./fragment.ts";

export type Status = "pass" | "warn" | "fail";
/** How an =m setting was judged: its modules were found, some were not, or no module set was given. */
export type ModuleCheck = "present" | "missing" | "unverified";

export interface OptionResult {
  readonly option: string;
  readonly class: OptionClass;
  /** What the class accepts: "y", "y/m" or "n" (not set). */
  readonly expected: "y" | "y/m" | "m" | "n";
  /** The .config's value: y, m, n (not set or absent), or the literal string/number. */
  readonly actual: string;
  readonly status: Status;
  /** Set only when actual is m and the fragment names modules for the option. */
  readonly moduleCheck: ModuleCheck | null;
  readonly modules: readonly string[];
  readonly missingModules: readonly string[];
  /** What is wrong (or what was assumed), in words; empty when it simply matches. */
  readonly finding: string;
  readonly reason: string;
}

export interface ModuleSet {
  readonly source: string;
  readonly names: ReadonlySet<string>;
}

export interface Report {
  readonly fragment: string;
  readonly config: string;
  readonly modules: { readonly source: string; readonly count: number } | null;
  readonly verdict: "pass" | "fail";
  readonly counts: Readonly<Record<Status, number>>;
  /** How many =m settings counted as present without a module set to verify them. */
  readonly unverifiedModules: number;
  readonly results: readonly OptionResult[];
}

function expectedOf(e: FragmentEntry): OptionResult["expected"] {
  if (e.value === "n") return "n";
  if (e.class === "required-builtin") return "y";
  if (e.value === "m") return "m";
  return e.modules.length > 0 ? "y/m" : "y";
}

function describe(actual: string): string {
  return actual === "n" ? "not set" : `=${actual}`;
}

export function evaluateOption(e: FragmentEntry, config: DotConfig, modules: ModuleSet | undefined): OptionResult {
  const v = config.options.get(e.name);
  const actual = v === undefined ? "n" : v.kind === "string" ? JSON.stringify(v.value) : v.value;
  const expected = expectedOf(e);
  const miss: Status = e.class === "recommended" ? "warn" : "fail";
  const base = { option: e.name, class: e.class, expected, actual, modules: e.modules, reason: e.reason };
  const result = (status: Status, finding: string, moduleCheck: ModuleCheck | null = null, missingModules: string[] = []): OptionResult => ({
    ...base,
    status,
    finding,
    moduleCheck,
    missingModules,
  });

  if (v !== undefined && v.kind !== "y" && v.kind !== "m" && v.kind !== "n") {
    return result(
      miss,
      `has the value ${actual}, expected ${
        expected === "n"
          ? "not set"
          : expected
              .split("/")
              .map((x) => "=" + x)
              .join(" or ")
      }`,
    );
  }
  if (expected === "n") {
    return actual === "n" ? result("pass", "") : result(miss, `is ${describe(actual)}, must not be set`);
  }
  if (actual === "n") return result(miss, "is not set");
  if (actual === "y") return expected === "m" ? result(miss, "is built in (=y), expected a module (=m)") : result("pass", "");
  // actual === "m"
  if (expected === "y") {
    return result(miss, e.class === "required-builtin" ? "is a module (=m): it must be built in, a module loads too late" : "is a module (=m), expected built in (=y)");
  }
  if (e.modules.length === 0) return result("pass", "=m");
  if (modules === undefined) return result("pass", "=m, counted as present: not verified (no --modules)", "unverified");
  const missing = e.modules.filter((m) => !modules.names.has(m));
  if (missing.length === 0) return result("pass", "=m, module in the module set", "present");
  return result(miss, `is a module (=m) but ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not in the module set`, "missing", missing);
}

export function evaluate(fragment: Fragment, config: DotConfig, modules?: ModuleSet): Report {
  const results = fragment.entries.map((e) => evaluateOption(e, config, modules));
  const counts: Record<Status, number> = { pass: 0, warn: 0, fail: 0 };
  for (const r of results) counts[r.status]++;
  return {
    fragment: fragment.source,
    config: config.source,
    modules: modules ? { source: modules.source, count: modules.names.size } : null,
    verdict: counts.fail > 0 ? "fail" : "pass",
    counts,
    unverifiedModules: results.filter((r) => r.moduleCheck === "unverified").length,
    results,
  };
}
