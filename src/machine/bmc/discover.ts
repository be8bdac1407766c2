/**
 * The BMC stage's work, as metal-hammer does it before Register (metal-stack/metal-hammer@ec148e3
 * cmd/register/register.go:281-324): read the LAN address, the firmware revision and the
 * FRU in-band, note whether the "metal" user is there already (`user list`: an earlier
 * boot registered its password), create the "metal" user with a random password and Administrator
 * privilege at the vendor's user id, and after Register set the superuser's password the
 * apiserver hands out (cmd/supwd.go). Every password is set as raw bytes
 * (set-user-password.ts) and then checked with IPMI's Test Password, which neither
 * metal-hammer nor go-hal does after setting. A BMC that fails never stops provisioning
 * (metal-stack/metal-hammer#68: a failing ipmitool call once put machines into a boot
 * loop): every failure becomes a note, and what was read is reported.
 */
import type { Ipmitool } from "./ipmitool.ts";
import { BMC_PASSWORD_MAX, metalPassword, passwordProblem, type RandomBytes } from "./bmc-password.ts";
import { PASSWORD_TEST_FAILED, PASSWORD_TEST_WRONG_SIZE, passwordFieldHex, rawCompletionCode, setUserPasswordLine } from "./set-user-password.ts";
import { parseBmcInfo, parseFru, parseLanPrint, type FruReading, type LanReading } from "./reading.ts";
import { parseUserList } from "./user-list.ts";
import { ADMINISTRATOR, bmcVendor, type BmcUser, type BmcVendor } from "./vendor.ts";

/** What the BMC stage read and did; `notes` say in words what did not work. */
export interface BmcReading {
  readonly lan: LanReading;
  readonly firmwareRevision?: string;
  readonly fru: FruReading;
  readonly notes: readonly string[];
}

export interface BmcReport extends BmcReading {
  readonly present: true;
  /** go-hal's vendor name (undefined: the board vendor is not one go-hal knows: no user is created). */
  readonly vendor?: string;
  /** The metal user, when it was created; `password` is a secret (registered before it was set). */
  readonly user?: { readonly name: string; readonly id: number; readonly password: string };
  /**
   * Whether the metal user was on the BMC before this boot wrote it (`user list`: an earlier
   * boot made it and registered its password); "unknown" when the list could not be read;
   * undefined when no user was written (no known vendor, read only).
   */
  readonly metalUserBefore?: "present" | "absent" | "unknown";
}

export type BmcOutcome = BmcReport | { readonly present: false; readonly notes: readonly string[] };

export interface BmcDeps {
  readonly tool: Ipmitool;
  readonly random: RandomBytes;
  /** Called with every password before it reaches the BMC (the log's secret set). */
  readonly addSecret: (value: string) => void;
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the retry's jitter. */
  readonly jitter: () => number;
}

/** Password writes are retried (BMCs answer "busy" while they commit a user); go-hal retries 30 times, 1 s apart. */
export const PASSWORD_ATTEMPTS = 3;
export const PASSWORD_RETRY_MAX_MS = 1_000;

/** One ipmitool call; undefined when it worked, else a note naming the command and what it said. */
async function step(tool: Ipmitool, args: readonly string[], shownAs = args.join(" ")): Promise<{ readonly stdout: string } | { readonly note: string }> {
  const r = await tool.run(args);
  if (r.code === 0) return { stdout: r.stdout };
  return { note: failure(tool, shownAs, r) };
}

/** ipmitool's complaint that it has no IANA enterprise list: the initramfs leaves the 4.7 MB list out (only manufacturer names need it). */
const NO_IANA_LIST = /^IANA PEN registry open failed/;

function failure(tool: Ipmitool, shownAs: string, r: { readonly code: number; readonly stderr: string; readonly stdout: string; readonly timedOut: boolean }): string {
  const lines = (r.stderr.trim() || r.stdout.trim()).split("\n").filter((l) => !NO_IANA_LIST.test(l.trim()));
  const said = lines.slice(-2).join(" / ").slice(0, 200);
  if (r.timedOut) return `${tool.describe} ${shownAs}: no answer within its bound (killed)`;
  if (r.code === 127) return `${tool.describe} ${shownAs}: cannot run ipmitool (${said || "not found"})`;
  return `${tool.describe} ${shownAs}: exit ${r.code}${said ? `: ${said}` : ""}`;
}

/** `lan print`, `bmc info`, `fru`: what Register reports. Each may fail alone. */
export async function readBmc(tool: Ipmitool): Promise<BmcReading> {
  const notes: string[] = [];
  const lanOut = await step(tool, ["lan", "print"]);
  const lan = "stdout" in lanOut ? parseLanPrint(lanOut.stdout) : { notes: [lanOut.note] };
  notes.push(...lan.notes);
  const infoOut = await step(tool, ["bmc", "info"]);
  const info = "stdout" in infoOut ? parseBmcInfo(infoOut.stdout) : { notes: [infoOut.note] };
  notes.push(...info.notes);
  const fruOut = await step(tool, ["fru"]);
  const fru = "stdout" in fruOut ? parseFru(fruOut.stdout) : { fru: {}, notes: [fruOut.note] };
  notes.push(...fru.notes);
  return { lan, ...("firmwareRevision" in info && info.firmwareRevision ? { firmwareRevision: info.firmwareRevision } : {}), fru: fru.fru, notes };
}

/** Sets `user`'s password (its bytes on stdin) and enables it, retried with jitter. */
async function setPassword(deps: BmcDeps, user: BmcUser, password: string): Promise<string | undefined> {
  let last = "";
  for (let attempt = 1; attempt <= PASSWORD_ATTEMPTS; attempt++) {
    const r = await deps.tool.runSecret(setUserPasswordLine(user.id, "set", password));
    if (r.code === 0) {
      const enabled = await step(deps.tool, ["user", "enable", String(user.id)]);
      return "note" in enabled ? enabled.note : undefined;
    }
    last = failure(deps.tool, `raw Set User Password ${user.id} (password on stdin)`, r);
    if (r.code === 127 || attempt === PASSWORD_ATTEMPTS) break;
    await deps.sleep(Math.floor(deps.jitter() * PASSWORD_RETRY_MAX_MS));
  }
  return `${last} (after ${PASSWORD_ATTEMPTS} attempts)`;
}

/**
 * Asks the BMC whether `user` now has `password` (Test Password, IPMI 2.0): a refusal
 * (0x80 wrong password, 0x81 wrong size) means the BMC keeps another password than the
 * one set: not ok. A BMC that cannot test (an IPMI 1.5 BMC answers "invalid command") is
 * ok with a note saying the password is unverified. ipmi_sim answers every test with
 * success (docs/bmc.md), so the lab proves the bytes by a lanplus login instead.
 */
async function verifyPassword(deps: BmcDeps, user: BmcUser, password: string): Promise<{ readonly ok: boolean; readonly note?: string }> {
  const r = await deps.tool.runSecret(setUserPasswordLine(user.id, "test", password));
  if (r.code === 0) return { ok: true };
  const cc = rawCompletionCode(`${r.stderr}\n${r.stdout}`);
  if (cc === PASSWORD_TEST_FAILED || cc === PASSWORD_TEST_WRONG_SIZE) {
    const why = cc === PASSWORD_TEST_FAILED ? "password incorrect" : "wrong password size";
    return { ok: false, note: `BMC user ${user.name} (id ${user.id}) does not have the password just set: Test Password answered 0x${cc.toString(16)} (${why})` };
  }
  return { ok: true, note: `${failure(deps.tool, `raw Test Password ${user.id} (password on stdin)`, r)}: the password set for ${user.name} is not verified` };
}

/**
 * Name, password, channel access with `privilege` (link, IPMI messaging and callin on),
 * SOL payload access, in go-hal's order (internal/ipmi/ipmitool.go:278-360). SOL is
 * optional: a BMC without SOL still lets the user in.
 */
export async function writeUser(deps: BmcDeps, user: BmcUser, password: string, privilege = ADMINISTRATOR): Promise<{ readonly ok: boolean; readonly notes: readonly string[] }> {
  const problem = passwordProblem(password);
  if (problem) return { ok: false, notes: [`the password for BMC user ${user.name} (id ${user.id}) is not set: ${problem}`] };
  // Its bytes in hex travel on stdin too: a secret in that form as well.
  deps.addSecret(password);
  deps.addSecret(passwordFieldHex(password));
  const named = await step(deps.tool, ["user", "set", "name", String(user.id), user.name]);
  if ("note" in named) return { ok: false, notes: [named.note] };
  const pw = await setPassword(deps, user, password);
  if (pw) return { ok: false, notes: [pw] };
  const verified = await verifyPassword(deps, user, password);
  const notes = verified.note ? [verified.note] : [];
  if (!verified.ok) return { ok: false, notes };
  const access = await step(deps.tool, ["channel", "setaccess", String(user.channel), String(user.id), "link=on", "ipmi=on", "callin=on", `privilege=${privilege}`]);
  if ("note" in access) return { ok: false, notes: [...notes, access.note] };
  const sol = await step(deps.tool, ["sol", "payload", "enable", String(user.channel), String(user.id)]);
  return { ok: true, notes: "note" in sol ? [...notes, `${sol.note} (the user works without SOL access)`] : notes };
}

/**
 * Reads the BMC and creates the metal user; `boardVendor` is DMI's board_vendor.
 * `writeUsers` false (the agent outside its initramfs, e.g. on a developer's host) reads only.
 */
export async function discoverBmc(deps: BmcDeps, present: boolean, boardVendor: string, writeUsers = true): Promise<BmcOutcome> {
  if (!present) return { present: false, notes: ["no BMC: no /dev/ipmi* (ipmi_si found no KCS/SMIC/BT interface)"] };
  const reading = await readBmc(deps.tool);
  const vendor = bmcVendor(boardVendor);
  const notes = [...reading.notes];
  if (!writeUsers) {
    notes.push("not running from the agent's initramfs: BMC users are not written (read only)");
    return { present: true, ...reading, ...(vendor ? { vendor: vendor.name } : {}), notes };
  }
  if (!vendor) {
    notes.push(
      `board vendor ${JSON.stringify(boardVendor.trim())} is not one whose BMC user ids are known (Supermicro, Novarion-Systems, Lenovo, Dell, Giga Computing): no metal user created`,
    );
    return { present: true, ...reading, notes };
  }
  const before = await metalUserOnBmc(deps.tool, vendor.metal);
  if (before.note) notes.push(before.note);
  const password = metalPassword(deps.random);
  const written = await writeUser(deps, vendor.metal, password);
  notes.push(...written.notes);
  return {
    present: true,
    ...reading,
    vendor: vendor.name,
    ...(written.ok ? { user: { name: vendor.metal.name, id: vendor.metal.id, password } } : {}),
    metalUserBefore: before.state,
    notes,
  };
}

/** Whether `user` (its id holding its name) is on the BMC now: `user list <channel>`. */
async function metalUserOnBmc(tool: Ipmitool, user: BmcUser): Promise<{ readonly state: "present" | "absent" | "unknown"; readonly note?: string }> {
  const listed = await step(tool, ["user", "list", String(user.channel)]);
  if ("note" in listed) return { state: "unknown", note: `${listed.note}: whether the ${user.name} user was there before is not known` };
  return { state: parseUserList(listed.stdout).get(user.id) === user.name ? "present" : "absent" };
}

/** Sets the superuser's password from BootService/SuperUserPassword (metal-hammer cmd/supwd.go). */
export async function writeSuperUser(deps: BmcDeps, vendor: BmcVendor, password: string): Promise<{ readonly ok: boolean; readonly notes: readonly string[] }> {
  return await writeUser(deps, vendor.superUser, password);
}

export { BMC_PASSWORD_MAX, bmcVendor };
