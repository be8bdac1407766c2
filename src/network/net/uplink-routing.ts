/**
 * Each uplink its own path (docs/network.md "Uplinks"): for every uplink a routing
 * table holding only its default route (via its own router, out of its own NIC) and a
 * rule `from <its address> lookup <its table>`, so a connection bound to that address
 * leaves through that NIC whatever the main table prefers. One more rule, before them,
 * looks the main table up without its default routes (suppress_prefixlength 0): on-link
 * and more specific routes still win as before. The main table is never written: it
 * stays as the RAs make it, and unbound traffic goes as it always did.
 *
 * Pure: `planUplinkRouting` turns what is installed and what is wanted into the steps,
 * `routingRequest` a step into its rtnetlink request; uplink-table.ts applies them.
 */
import { policyRuleRequest, tableDefaultRouteRequest } from "../netlink/request.ts";
import type { Uplink } from "./uplinks.ts";

/** An uplink's table is this plus its ifindex (far from main 254, local 255, default 253). */
export const UPLINK_TABLE_BASE = 1000;
/** The priority of the source rules; the main-without-defaults rule sits just before. */
export const UPLINK_RULE_PRIORITY = 1000;
export const MAIN_FIRST_PRIORITY = UPLINK_RULE_PRIORITY - 1;
const RT_TABLE_MAIN = 254;

export const uplinkTable = (ifindex: number): number => UPLINK_TABLE_BASE + ifindex;

export type RoutingStep =
  | { readonly kind: "route"; readonly op: "new" | "del"; readonly name: string; readonly table: number; readonly ifindex: number; readonly gateway: string }
  | { readonly kind: "rule"; readonly op: "new" | "del"; readonly name: string; readonly table: number; readonly source: string }
  /** The main table without its default routes, before the source rules. */
  | { readonly kind: "main-first"; readonly op: "new" | "del" };

const same = (a: Uplink, b: Uplink): boolean => a.name === b.name && a.ifindex === b.ifindex && a.address === b.address && a.router === b.router;

const routeStep = (op: "new" | "del", u: Uplink): RoutingStep => ({ kind: "route", op, name: u.name, table: uplinkTable(u.ifindex), ifindex: u.ifindex, gateway: u.router });
const ruleStep = (op: "new" | "del", u: Uplink): RoutingStep => ({ kind: "rule", op, name: u.name, table: uplinkTable(u.ifindex), source: u.address });

/**
 * The steps from `installed` to `wanted` (uplinks keyed by ifindex; a changed address
 * or router is removed and added again). Removals first, each rule before its route
 * (no rule ever points into a table about to empty); additions route first. The
 * main-first rule comes with the first uplink and goes with the last.
 */
export function planUplinkRouting(installed: readonly Uplink[], wanted: readonly Uplink[]): RoutingStep[] {
  const gone = installed.filter((i) => !wanted.some((w) => same(i, w)));
  const added = wanted.filter((w) => !installed.some((i) => same(i, w)));
  const steps: RoutingStep[] = [];
  for (const u of gone) steps.push(ruleStep("del", u), routeStep("del", u));
  if (installed.length > 0 && wanted.length === 0) steps.push({ kind: "main-first", op: "del" });
  if (installed.length === 0 && wanted.length > 0) steps.push({ kind: "main-first", op: "new" });
  for (const u of added) steps.push(routeStep("new", u), ruleStep("new", u));
  return steps;
}

/** The rtnetlink request of one step. */
export function routingRequest(step: RoutingStep): (seq: number) => Uint8Array {
  switch (step.kind) {
    case "route":
      return (seq) => tableDefaultRouteRequest(seq, step.op, { table: step.table, ifindex: step.ifindex, gateway: step.gateway });
    case "rule":
      return (seq) => policyRuleRequest(seq, step.op, { priority: UPLINK_RULE_PRIORITY, table: step.table, source: step.source });
    case "main-first":
      return (seq) => policyRuleRequest(seq, step.op, { priority: MAIN_FIRST_PRIORITY, table: RT_TABLE_MAIN, suppressPrefixLength: 0 });
  }
}

/** A step in words, as `ip` would show it (log lines, error messages). */
export function describeStep(step: RoutingStep): string {
  const verb = step.op === "new" ? "add" : "delete";
  switch (step.kind) {
    case "route":
      return `${verb} default via ${step.gateway} dev ${step.name} table ${step.table}`;
    case "rule":
      return `${verb} rule from ${step.source} lookup ${step.table} priority ${UPLINK_RULE_PRIORITY}`;
    case "main-first":
      return `${verb} rule lookup main suppress_prefixlength 0 priority ${MAIN_FIRST_PRIORITY}`;
  }
}
