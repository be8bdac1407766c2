/**
 * Fake hdparm and sg3_utils for the executor tests: each acts on a FakeDev (helpers.ts)
 * the way the drive would, keeps the drive's security state, records every password it
 * was given on stdin, and can fail each way a real drive does (erase timeout, erase
 * error, still locked after the erase, unlock refused, frozen).
 */
import type { ToolResult } from "../../../src/machine/disk/io.ts";
import type { FakeDev } from "./helpers.ts";

const ok = (stdout = ""): ToolResult => ({ code: 0, stdout, stderr: "", timedOut: false });
const fail = (stderr: string, stdout = ""): ToolResult => ({ code: 5, stdout, stderr, timedOut: false });

export interface FakeAtaDrive {
  /** `hdparm -I` as recorded, with the "not enabled" / "not locked" lines the state is written into. */
  readonly identify: string;
  enabled: boolean;
  locked: boolean;
  password: string | undefined;
  /** Every password the drive was given on stdin. */
  readonly passwordsSeen: string[];
  /** How SECURITY ERASE UNIT ends. */
  erase: "ok" | "timeout" | "error-echoing-password" | "stays-locked";
  /** Whether SECURITY UNLOCK with the right password works. */
  unlock: "ok" | "refused";
  /** `hdparm --sanitize-status` answers in turn (the last repeats). */
  sanitizeStatus: string[];
}

export function ataDrive(identify: string, over: Partial<FakeAtaDrive> = {}): FakeAtaDrive {
  return { identify, enabled: false, locked: false, password: undefined, passwordsSeen: [], erase: "ok", unlock: "ok", sanitizeStatus: [], ...over };
}

function identifyNow(a: FakeAtaDrive): string {
  return a.identify.replace("\tnot\tenabled\n\tnot\tlocked\n", `${a.enabled ? "\t\tenabled" : "\tnot\tenabled"}\n${a.locked ? "\t\tlocked" : "\tnot\tlocked"}\n`);
}

function erased(dev: FakeDev, fill: number): void {
  dev.bytes.fill(fill);
  dev.signatures = [];
  dev.partitions = [];
}

/** Hooks for fakeMachine: `setsid hdparm ... --security-*` (password on stdin) and `hdparm -I`, `--sanitize-*`. */
export function fakeHdparm(dev: FakeDev, a: FakeAtaDrive) {
  const frozen = () => /^\t\tfrozen$/m.test(a.identify);
  return {
    setsid(argv: readonly string[], opts: { readonly stdin?: string }): ToolResult {
      const pw = (opts.stdin ?? "").replace(/\n$/, "");
      a.passwordsSeen.push(pw);
      const action = argv.at(-2);
      const issuing = (cmd: string) => ` Issuing ${cmd} command, password="${pw}", user=user\n`;
      // hdparm names the ATA command in its error (perror), e.g. "SECURITY_SET_PASS: Input/output error".
      const command = String(action).slice(2).toUpperCase().replace(/-/g, "_");
      if (frozen()) return fail(`${command}: Input/output error`, issuing(command));
      switch (action) {
        case "--security-set-pass":
          a.password = pw;
          a.enabled = true;
          return ok(issuing("SECURITY_SET_PASS"));
        case "--security-erase":
        case "--security-erase-enhanced": {
          if (pw !== a.password) return fail("SECURITY_ERASE: Input/output error");
          if (a.erase === "timeout") return { code: -1, stdout: "", stderr: "", timedOut: true };
          if (a.erase === "error-echoing-password") return { code: 5, stdout: issuing("SECURITY_ERASE"), stderr: "", timedOut: false };
          erased(dev, action === "--security-erase" ? 0 : 0x5a);
          if (a.erase === "stays-locked") a.locked = true;
          else {
            a.enabled = false;
            a.password = undefined;
          }
          return ok(issuing("SECURITY_ERASE"));
        }
        case "--security-unlock":
          if (a.unlock === "refused" || pw !== a.password) return fail("SECURITY_UNLOCK: Input/output error");
          a.locked = false;
          return ok(issuing("SECURITY_UNLOCK"));
        case "--security-disable":
          if (a.locked || pw !== a.password) return fail("SECURITY_DISABLE: Input/output error");
          a.enabled = false;
          a.password = undefined;
          return ok(issuing("SECURITY_DISABLE"));
        default:
          return fail(`unexpected ${argv.join(" ")}`);
      }
    },
    hdparm(argv: readonly string[]): ToolResult {
      if (argv[1] === "-I") return ok(identifyNow(a));
      if (argv[1] === "--sanitize-status") return ok(a.sanitizeStatus.length > 1 ? (a.sanitizeStatus.shift() as string) : (a.sanitizeStatus[0] ?? ""));
      if (argv[1] === "--yes-i-know-what-i-am-doing") {
        erased(dev, argv.includes("--sanitize-crypto-scramble") ? 0x33 : 0);
        return ok();
      }
      return fail(`unexpected ${argv.join(" ")}`);
    },
  };
}

/** Hooks for `sg_opcodes`, `sg_sanitize`, `sg_format`, `sg_requests` (its answers in turn, the last repeats). */
export function fakeSg(dev: FakeDev, opcodes: string, requests: string[]) {
  return {
    sg_opcodes: (): ToolResult => ok(opcodes),
    sg_sanitize: (argv: readonly string[]): ToolResult => {
      erased(dev, argv.includes("--crypto") ? 0x33 : 0);
      return ok();
    },
    sg_format: (): ToolResult => {
      erased(dev, 0x00);
      return ok();
    },
    sg_requests: (): ToolResult => ok(requests.length > 1 ? (requests.shift() as string) : (requests[0] ?? "")),
  };
}
