/**
 * Link-up -> ready, side by side in one run (run as root):
 *   bun bench/bringup.ts [--runs 7] [--binary dist/metal-hammer] [--knobs]
 * The default run checks issue 12's bar and exits 1 when it is missed: the agent's
 * default median <= 0.40 x the dracut-style poll's, and <= 1.15 x one DAD
 * retransmission (1000 ms, stock retrans timer) after link-up.
 * --knobs: instead, what each fast-profile knob buys (agent, knobs preset one by one).
 * --only TEXT: just the variants whose name contains TEXT.
 * Each sample gets a fresh lab (veth + radvd with test/fixtures/radvd/slaac.conf,
 * MinRtrAdvInterval 3 / MaxRtrAdvInterval 4) and `ip -ts monitor` in the agent
 * namespace. Ready = a non-tentative global address + a default route.
 *   agent:  `net up --json` (linkUpAt/readyAt from the agent's own clock): the default
 *           (router_solicitation_delay=0 + our own RS from ::), --rs-delay (the RFC
 *           delay, no RS: the default before issue 12) and --fast. Start = process
 *           spawn -> link-up request (Bun start, module load, subscribe, select, sysctls),
 *           also printed step by step (startedAt and startup of `net up --json`).
 *   poll:   a dracut-style loop polling `ip -6 addr`/`ip -6 route` every 100 ms.
 *   dhcpcd: `dhcpcd -6 -1 --waitip=6` (Debian's dhcpcd-base; it does RS/SLAAC itself).
 * Overhead = ready time minus the monitor's timestamp of the last needed event
 * (the global address turning non-tentative, or the default route, whichever is later).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Lab, eui64, sh } from "../test/helpers/netns.ts";

const argv = process.argv.slice(2);
const option = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? dflt) : dflt;
};
const RUNS = Number(option("--runs", "7"));
const ROOT = join(import.meta.dir, "..");
const BINARY = option("--binary", join(ROOT, "dist/metal-hammer"));
const AGENT = existsSync(BINARY) ? [BINARY] : [process.execPath, join(ROOT, "src/main.ts")];

interface Sample {
  readyMs: number;
  overheadMs: number | undefined;
  rssKiB?: number | undefined;
  startMs?: number | undefined;
  steps?: Record<string, number> | undefined;
}

type Run = (lab: Lab, ifname: string) => Promise<{ t0: number; t1: number; rssKiB?: number; startMs?: number; steps?: Record<string, number> }>;

/** Start-up before link-up, step by step (issue 12 "Start-up cost"), from `net up --json`'s startedAt and startup. */
const STEPS = ["spawn -> process", "process -> bring-up", "subscribe", "select", "sysctls", "link-up request"] as const;

const FAST_SYSCTLS = (i: string) => [
  `net.ipv6.conf.${i}.router_solicitation_delay=0`,
  `net.ipv6.conf.${i}.optimistic_dad=1`,
  `net.ipv6.conf.${i}.use_optimistic=1`,
  `net.ipv6.neigh.${i}.retrans_time_ms=100`,
];

const POLL_SCRIPT = `
IF=$1
t0=$(date +%s%N)
ip link set "$IF" up
while :; do
  a=$(ip -6 addr show dev "$IF" scope global | grep inet6 | grep -v tentative || true)
  r=$(ip -6 route show default dev "$IF" || true)
  [ -n "$a" ] && [ -n "$r" ] && break
  sleep 0.1
done
t1=$(date +%s%N)
echo "$t0 $t1"
`;

/** `ip -ts` prints local time with microseconds: [2026-11-29T18:48:53.400965]. */
function lastNeededEvent(monitor: string, gua: string): number | undefined {
  let addr: number | undefined;
  let route: number | undefined;
  const ts = (line: string) => {
    const m = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})\]/.exec(line);
    return m ? new Date(`${m[1]}Z`).getTime() + Number(m[2]) / 1000 : undefined;
  };
  for (const line of monitor.split("\n")) {
    const t = ts(line);
    if (t === undefined) continue;
    if (addr === undefined && line.includes(`inet6 ${gua}/64`) && !line.includes("tentative") && !line.includes("Deleted")) addr = t;
    if (route === undefined && /default via fe80::\S+ dev/.test(line) && !line.includes("Deleted")) route = t;
  }
  return addr !== undefined && route !== undefined ? Math.max(addr, route) : undefined;
}

async function sample(kind: string, run: Run): Promise<Sample> {
  const lab = new Lab();
  try {
    const l = lab.addLink();
    await lab.radvd(l, "slaac.conf");
    // Settle: the previous sample's namespace is torn down asynchronously by the kernel
    // (cleanup_net holds RTNL), which would delay this link's operstate change (link
    // watch needs RTNL) by up to ~0.7 s; radvd's start-up RAs also pass meanwhile.
    await Bun.sleep(3000);
    const monFile = join(lab.dir, "monitor.txt");
    const mon = Bun.spawn(["ip", "netns", "exec", lab.agentNs, "ip", "-ts", "monitor", "address", "route"], { stdout: Bun.file(monFile) });
    await Bun.sleep(150); // the monitor must be listening before link-up
    const { t0, t1, rssKiB, startMs, steps } = await run(lab, l.agentIf);
    await Bun.sleep(50);
    mon.kill();
    await Promise.race([mon.exited, Bun.sleep(2000)]);
    const text = readFileSync(monFile, "utf8");
    const last = lastNeededEvent(text, eui64("2001:db8:1::", l.mac));
    return { readyMs: t1 - t0, overheadMs: last === undefined ? undefined : t1 - last, rssKiB, startMs, steps };
  } catch (e) {
    throw new Error(`${kind}: ${(e as Error).message}`);
  } finally {
    await lab.cleanup();
  }
}

/** The agent, with some knobs preset in the namespace first (the per-knob table). */
const agent =
  (extra: string[], preset: (i: string) => string[] = () => []): Run =>
  async (lab: Lab, ifname: string) => {
    for (const s of preset(ifname)) sh("ip", "netns", "exec", lab.agentNs, "sysctl", "-qw", s);
    const spawned = performance.timeOrigin + performance.now();
    const p = Bun.spawnSync(
      ["ip", "netns", "exec", lab.agentNs, ...AGENT, "net", "up", "--interfaces", ifname, "--timeout", "30s", "--resolv-conf", join(lab.dir, "resolv.conf"), "--json", ...extra],
      { stdout: "pipe", stderr: "pipe" },
    );
    if (p.exitCode !== 0) throw new Error(`agent exit ${p.exitCode}: ${p.stderr.toString().slice(-400)}`);
    const j = JSON.parse(p.stdout.toString()) as {
      linkUpAt: number;
      readyAt: number;
      peakRssKiB?: number;
      startedAt: number;
      startup: { entered: number; subscribed: number; selected: number; sysctls: number };
    };
    const u = j.startup;
    // spawn -> process: `ip netns exec` and exec of the binary; process -> bring-up: Bun start, module load, option parsing.
    const at = [spawned, j.startedAt, u.entered, u.subscribed, u.selected, u.sysctls, j.linkUpAt];
    const steps = Object.fromEntries(STEPS.map((name, i) => [name, (at[i + 1] ?? NaN) - (at[i] ?? NaN)]));
    return { t0: j.linkUpAt, t1: j.readyAt, startMs: j.linkUpAt - spawned, steps, ...(j.peakRssKiB !== undefined ? { rssKiB: j.peakRssKiB } : {}) };
  };

const poll = (fast: boolean) => async (lab: Lab, ifname: string) => {
  for (const s of [`net.ipv6.conf.${ifname}.accept_ra=1`, `net.ipv6.conf.${ifname}.autoconf=1`, ...(fast ? FAST_SYSCTLS(ifname) : [])])
    sh("ip", "netns", "exec", lab.agentNs, "sysctl", "-qw", s);
  const out = sh("ip", "netns", "exec", lab.agentNs, "bash", "-c", POLL_SCRIPT, "poll", ifname).trim().split(" ");
  return { t0: Number(out[0]) / 1e6, t1: Number(out[1]) / 1e6 };
};

const dhcpcd = async (lab: Lab, ifname: string) => {
  // -c /bin/true: no hook scripts (they would rewrite the machine's resolv.conf); -f /dev/null: no config.
  const t0 = Date.now();
  const p = Bun.spawnSync(["ip", "netns", "exec", lab.agentNs, "dhcpcd", "-6", "-1", "--waitip=6", "-t", "30", "-c", "/bin/true", "-f", "/dev/null", "-B", ifname], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const t1 = Date.now();
  if (p.exitCode !== 0) throw new Error(`dhcpcd exit ${p.exitCode}: ${p.stderr.toString().slice(-300)}`);
  return { t0, t1 };
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? (s[(n - 1) / 2] ?? NaN) : ((s[n / 2 - 1] ?? 0) + (s[n / 2] ?? 0)) / 2;
};
const fmt = (xs: number[]) => (xs.length === 0 ? "-" : `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}]`);

const DEFAULT = "agent (default)";
const POLL = "dracut-style poll 100 ms";
const variants: [string, Run][] = [
  [DEFAULT, agent([])],
  ["agent --rs-delay (RFC delay, no RS)", agent(["--rs-delay"])],
  ["agent --fast", agent(["--fast"])],
  [POLL, poll(false)],
];
const rsd0 = (i: string) => [`net.ipv6.conf.${i}.router_solicitation_delay=0`];
const opt = (i: string) => [`net.ipv6.conf.${i}.optimistic_dad=1`, `net.ipv6.conf.${i}.use_optimistic=1`];
const retrans = (i: string) => [`net.ipv6.neigh.${i}.retrans_time_ms=100`];
const knobs: typeof variants = [
  ["RFC delay, no RS (--rs-delay)", agent(["--rs-delay"])],
  ["+ router_solicitation_delay=0", agent(["--rs-delay", "--no-solicit"], rsd0)],
  ["+ optimistic_dad, use_optimistic", agent(["--rs-delay"], opt)],
  ["+ retrans_time_ms=100", agent(["--rs-delay"], retrans)],
  ["rsd=0 + optimistic", agent(["--rs-delay", "--no-solicit"], (i) => [...rsd0(i), ...opt(i)])],
  ["rsd=0 + optimistic + retrans", agent(["--rs-delay", "--no-solicit"], (i) => [...rsd0(i), ...opt(i), ...retrans(i)])],
  ["all three + own RS (= --fast)", agent(["--fast"])],
];
if (argv.includes("--knobs")) variants.splice(0, variants.length, ...knobs);
if (argv.includes("--knobs")) {
  /* per-knob table only */
} else if (Bun.which("dhcpcd", { PATH: "/usr/sbin:/sbin:/usr/bin" })) variants.push(["dhcpcd -6 --waitip=6", dhcpcd]);
else console.log("dhcpcd: not installed (apt-get install dhcpcd-base); skipped");

const only = option("--only", "");
if (only) variants.splice(0, variants.length, ...variants.filter(([n]) => n.includes(only)));
console.log(`link-up -> ready (global address non-tentative + default route), ${RUNS} runs each, median [min-max] ms; agent = ${AGENT.join(" ")}`);
console.log(`${"variant".padEnd(36)} ${"ready ms".padEnd(24)} ${"overhead ms".padEnd(22)} ${"start ms".padEnd(20)} peak RSS MiB`);
const medians = new Map<string, number>();
// Interleaved (one sample of each variant per round), so load on the shared machine hits all alike.
const samples = new Map<string, Sample[]>(variants.map(([n]) => [n, []]));
for (let i = 0; i < RUNS; i++) for (const [name, run] of variants) samples.get(name)?.push(await sample(name, run));
for (const [name] of variants) {
  const ss = samples.get(name) ?? [];
  const over = ss.flatMap((s) => (s.overheadMs === undefined ? [] : [s.overheadMs]));
  const rss = ss.flatMap((s) => (s.rssKiB === undefined ? [] : [s.rssKiB / 1024]));
  const start = ss.flatMap((s) => (s.startMs === undefined ? [] : [s.startMs]));
  medians.set(name, median(ss.map((s) => s.readyMs)));
  console.log(
    `${name.padEnd(36)} ${fmt(ss.map((s) => s.readyMs)).padEnd(24)} ${fmt(over).padEnd(22)} ${(start.length ? fmt(start) : "-").padEnd(20)} ${rss.length ? fmt(rss) : "-"}`,
  );
}
console.log(`\nstart-up before link-up, median [min-max] ms per step (agent variants)`);
console.log(`${"variant".padEnd(36)} ${STEPS.map((n) => n.padEnd(22)).join(" ")}`);
for (const [name] of variants) {
  const ss = (samples.get(name) ?? []).flatMap((s) => (s.steps ? [s.steps] : []));
  if (ss.length > 0) console.log(`${name.padEnd(36)} ${STEPS.map((n) => fmt(ss.map((s) => s[n] ?? NaN)).padEnd(22)).join(" ")}`);
}
if (!argv.includes("--knobs") && !only) {
  const d = medians.get(DEFAULT) ?? NaN;
  const p = medians.get(POLL) ?? NaN;
  const DAD_RETRANS_MS = 1000;
  const okPoll = d <= 0.4 * p;
  const okLimit = d <= 1.15 * DAD_RETRANS_MS;
  console.log(
    `default / poll = ${(d / p).toFixed(2)} (bar <= 0.40: ${okPoll ? "met" : "MISSED"}); default / one DAD retransmission = ${(d / DAD_RETRANS_MS).toFixed(2)} (bar <= 1.15: ${okLimit ? "met" : "MISSED"})`,
  );
  if (!okPoll || !okLimit) process.exit(1);
}
