/**
 * Bring-up as an operator meets it (issue 12): resolv.conf bind-mounted or
 * symlinked, an interface deleted and re-created mid-bring-up, an RA flood with a
 * new DNS server in every RA, a bad --log-level.
 */
import { describe, expect, test } from "bun:test";
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eui64, nsx } from "../../helpers/netns.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { events, MAIN, runAgent, startAgent } from "./agent.ts";
import { PREFIX, SKIP, withLab, withLink } from "./lab.ts";

const DNS_LINES = "nameserver 2001:db8:1::53\nnameserver 2001:db8:1::54\nsearch lab.example corp.example\n";
/** Inside the agent's namespace (its own mount namespace: `ip netns exec` makes one), bind-mount $1 over $2 first. */
const BIND = ["sh", "-c", 'mount --bind "$1" "$2" || exit 99; shift 2; exec "$@"', "bind"];

describe.skipIf(SKIP !== undefined)("net up: resolv.conf as an operator set it up", () => {
  for (const needDns of [false, true]) {
    test(`bind-mounted (a mount point: rename fails with EBUSY) is written in place${needDns ? ", --need-dns" : ""}: exit 0`, async () => {
      await withLink("slaac.conf", async (lab, link) => {
        const source = join(lab.dir, "mounted-source");
        const target = join(lab.dir, "resolv.conf");
        writeFileSync(source, "# before\n");
        writeFileSync(target, "# the mount point\n");
        const r = await runAgent(
          lab,
          ["up", "--interfaces", link.agentIf, "--resolv-conf", target, "--timeout", "20s", "--log-level", "debug", ...(needDns ? ["--need-dns"] : [])],
          [...BIND, source, target],
        );
        expect(r.stderr).not.toContain("exit 99");
        expect(r.code).toBe(0);
        // The bind mount shares the inode: what was written in place is in the source file.
        expect(readFileSync(source, "utf8")).toContain(DNS_LINES);
        expect(events(r.logs, "net.dns.write").map((l) => l.how)).toContain("in-place");
      });
    }, 40_000);

    test(`a symlink (systemd-resolved) is left alone with a warning naming it and its target${needDns ? "; with --need-dns that is exit 15, not 13" : "; exit 0"}`, async () => {
      await withLink("slaac.conf", async (lab, link) => {
        const stub = join(lab.dir, "stub-resolv.conf");
        const path = join(lab.dir, "resolv.conf");
        writeFileSync(stub, "nameserver 127.0.0.53\n");
        symlinkSync(stub, path);
        const r = await runAgent(lab, ["up", "--interfaces", link.agentIf, "--resolv-conf", path, "--timeout", "20s", ...(needDns ? ["--need-dns"] : [])]);
        expect(r.code).toBe(needDns ? 15 : 0);
        const w = events(r.logs, "net.dns.write");
        expect(w.length).toBeGreaterThanOrEqual(1);
        expect(w[0]).toMatchObject({ level: needDns ? 50 : 40, path });
        expect(String(w[0]?.error)).toContain(`${path} is a symlink to ${stub}`);
        if (needDns) expect(r.stderr).toContain(`resolv.conf was not written: ${path} is a symlink to ${stub}`);
        expect(lstatSync(path).isSymbolicLink()).toBe(true);
        expect(readFileSync(stub, "utf8")).toBe("nameserver 127.0.0.53\n");
      });
    }, 40_000);
  }
});

describe.skipIf(SKIP !== undefined)("net up: interfaces that come and go", () => {
  test("deleted and re-created with the same name mid-bring-up: followed to the new ifindex, ready, exit 0", async () => {
    await withLink("slaac.conf", async (lab, link) => {
      const a = startAgent(lab, ["up", "--interfaces", link.agentIf, "--resolv-conf", join(lab.dir, "resolv.conf"), "--timeout", "30s", "--json"]);
      await waitFor(() => events(a.logs, "net.link.up").length > 0 || a.stdout() !== "", 15_000, "the agent to set the link up");
      const before = lab.ifindex(link);
      await lab.deleteLink(link);
      await lab.recreateLink(link, "slaac.conf");
      const after = lab.ifindex(link);
      const r = await a.done;
      expect(r.code).toBe(0);
      expect(after).not.toBe(before);
      expect(events(r.logs, "net.link.gone")).toMatchObject([{ ifname: link.agentIf, ifindex: before }]);
      expect(events(r.logs, "net.link.recreated")).toMatchObject([{ ifname: link.agentIf, ifindex: after, was: before }]);
      const out = JSON.parse(r.stdout) as { ready: string[]; interfaces: { addresses: string[] }[] };
      expect(out.ready).toEqual([link.agentIf]);
      expect(out.interfaces[0]?.addresses).toEqual([`${eui64(PREFIX, link.mac)}/64`]);
    });
  }, 60_000);

  test("deleted for good: 'interface disappeared' after the carrier timeout, exit 10, not 'administratively down'", async () => {
    await withLink("slaac.conf", async (lab, link) => {
      const a = startAgent(lab, ["up", "--interfaces", link.agentIf, "--resolv-conf", join(lab.dir, "resolv.conf"), "--timeout", "30s", "--carrier-timeout", "2s"]);
      await waitFor(() => events(a.logs, "net.link.up").length > 0, 15_000, "the agent to set the link up");
      await lab.deleteLink(link);
      const r = await a.done;
      expect(r.code).toBe(10);
      expect(r.stderr).toContain(`${link.agentIf}: interface disappeared`);
      expect(r.stderr).not.toContain("administratively down");
      expect(r.ms).toBeLessThan(20_000);
    });
  }, 60_000);
});

describe.skipIf(SKIP !== undefined)("an RA flood with a new RDNSS server in every RA", () => {
  test("net watch --duration 3s ends on time; net.dns lines and stderr stay small; resolv.conf keeps 3 servers; net up --need-dns is ready", async () => {
    await withLab(async (lab) => {
      const link = lab.addLink();
      const mac = (JSON.parse(nsx(link.routerNs, "ip", "-j", "link", "show", "dev", link.routerIf)) as { address: string }[])[0]?.address ?? "";
      // The router's own link-local only forms once the agent's side is up: give it a fixed one.
      nsx(link.routerNs, "ip", "-6", "addr", "add", "fe80::1/64", "dev", link.routerIf, "nodad");
      const flood = Bun.spawn(["ip", "netns", "exec", link.routerNs, process.execPath, join(import.meta.dir, "ra-flood.ts"), link.routerIf, "fe80::1", mac, "8000", "1000"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      try {
        const up = await runAgent(lab, ["up", "--interfaces", link.agentIf, "--resolv-conf", join(lab.dir, "up-resolv.conf"), "--need-dns", "--timeout", "20s"]);
        expect(up.code).toBe(0);
        expect(events(up.logs, "net.dns").length).toBeLessThanOrEqual(5);
        const resolv = join(lab.dir, "watch-resolv.conf");
        const w = startAgent(lab, ["watch", "--interfaces", link.agentIf, "--duration", "3s", "--resolv-conf", resolv, "--json"]);
        const r = await w.done;
        expect(r.code).toBe(0);
        // Bun start and the first dump come on top of the 3 s.
        expect(r.ms).toBeLessThan(3000 + 2500);
        const lines = r.stdout
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        const raOptions = lines.filter((l) => String(l.message ?? "").startsWith("ra-option"));
        expect(raOptions.length).toBeGreaterThan(500); // it was a flood
        const dns = lines.filter((l) => l.event === "net.dns");
        expect(dns.length).toBeLessThanOrEqual(5);
        expect(Math.max(...dns.map((l) => (l.servers as string[]).length))).toBeLessThanOrEqual(3);
        expect(r.stderr.length).toBeLessThan(16 * 1024);
        expect(readFileSync(resolv, "utf8").match(/^nameserver /gm)?.length).toBe(3);
      } finally {
        flood.kill();
        await flood.exited;
      }
    });
  }, 60_000);
});

describe("net up: a bad --log-level", () => {
  test("is a usage error (exit 2) naming the flag and the levels, before anything is touched", async () => {
    const p = Bun.spawn([process.execPath, MAIN, "net", "up", "--interfaces", "mhn-none0", "--log-level", "bogus"], { stdout: "pipe", stderr: "pipe" });
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    expect(code).toBe(2);
    expect(err).toContain('--log-level "bogus": expected trace, debug, info, warn, error or fatal');
    expect(err).not.toContain("no network interface");
  });
});
