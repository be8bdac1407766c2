/**
 * The agent's status for `metal-hammer status` in the debug shell: a small JSON file
 * under /run/metal (0644: it carries no secrets, only counters, times and host names;
 * every string passes the SecretSet scrub before it is written). The agent rewrites it
 * when something changes (at most once a second, atomically by rename); the command
 * only reads it.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import type { SecretSet } from "../../platform/log/redact.ts";

export const STATUS_FILE = "/run/metal/status.json";

export const StatusSchema = z.object({
  version: z.literal(1),
  updatedAt: z.string(),
  pid: z.number(),
  stage: z.string().nullable(),
  clock: z
    .object({
      decision: z.enum(["step", "keep", "unsynced", "no_servers"]),
      servers: z.array(z.string()),
      offsetMs: z.number().optional(),
      server: z.string().optional(),
      syncedAt: z.string().optional(),
      rtc: z.string(),
      problem: z.string().optional(),
    })
    .nullable(),
  watchdog: z
    .object({
      state: z.enum(["armed", "off", "closed", "error"]),
      device: z.string().optional(),
      timeoutS: z.number().optional(),
      pets: z.number(),
      lastPetAt: z.string().optional(),
      reason: z.string().optional(),
    })
    .nullable(),
  remoteLog: z
    .object({
      state: z.enum(["buffering", "shipping", "failing", "off"]),
      sent: z.number(),
      dropped: z.number(),
      failedPushes: z.number(),
      queued: z.number(),
      lastError: z.string().optional(),
      lastSentAt: z.string().optional(),
      reason: z.string().optional(),
    })
    .nullable(),
  plannedReboot: z.object({ at: z.string() }).nullable(),
  /** The last wipe's record per disk (absent until a wipe finished). */
  wipe: z
    .object({
      mode: z.enum(["fast", "overwrite"]),
      durationMs: z.number(),
      disks: z.array(
        z.object({
          disk: z.string(),
          outcome: z.enum(["wiped", "skipped", "failed"]),
          method: z.string().optional(),
          durationMs: z.number(),
          zeroesChecked: z.boolean(),
          locked: z.boolean(),
          reason: z.string().optional(),
        }),
      ),
    })
    .optional(),
  /** The machine token's expiry (from its claims, not verified) and how often it was renewed; never the token. Absent in files of older agents. */
  token: z
    .object({ kind: z.enum(["jwt", "opaque"]), expiresAt: z.string().optional(), renewals: z.number(), renewedAt: z.string().optional() })
    .nullable()
    .default(null),
  /** Each uplink (docs/network.md "Uplinks"): absent in files of agents before them. */
  uplinks: z
    .array(
      z.object({
        name: z.string(),
        state: z.enum(["preferred", "up", "failing", "dropped"]),
        address: z.string(),
        router: z.string(),
        preference: z.string(),
        lastOkAt: z.string().optional(),
        lastError: z.string().optional(),
        lastErrorAt: z.string().optional(),
      }),
    )
    .nullable()
    .optional(),
});

export type StatusDoc = z.output<typeof StatusSchema>;

export const emptyStatus = (pid: number, now: number): StatusDoc => ({
  version: 1,
  updatedAt: new Date(now).toISOString(),
  pid,
  stage: null,
  clock: null,
  watchdog: null,
  remoteLog: null,
  plannedReboot: null,
  token: null,
  uplinks: null,
});

export const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Writes the document atomically with mode 0644, every string scrubbed. */
export function writeStatus(path: string, doc: StatusDoc, secrets: SecretSet): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, secrets.scrub(JSON.stringify(doc, null, 2)) + "\n", { mode: 0o644 });
  chmodSync(tmp, 0o644);
  renameSync(tmp, path);
}

/** Keeps the document in memory and writes it at most once per `minIntervalMs` (the last change always lands). */
export class StatusWriter {
  #doc: StatusDoc;
  #lastWrite = -Infinity;
  #pending: Timer | undefined;

  constructor(
    readonly path: string,
    private readonly secrets: SecretSet,
    private readonly now: () => number = Date.now,
    private readonly minIntervalMs = 1000,
  ) {
    this.#doc = emptyStatus(process.pid, now());
  }

  get doc(): StatusDoc {
    return this.#doc;
  }

  update(patch: Partial<Omit<StatusDoc, "version" | "pid" | "updatedAt">>): void {
    this.#doc = { ...this.#doc, ...patch, updatedAt: new Date(this.now()).toISOString() };
    const wait = this.#lastWrite + this.minIntervalMs - this.now();
    if (wait <= 0) return this.flush();
    if (this.#pending === undefined) {
      this.#pending = setTimeout(() => this.flush(), wait);
      this.#pending.unref?.();
    }
  }

  /** Writes now; never throws (a status file is a convenience, not part of the flow). */
  flush(): void {
    clearTimeout(this.#pending);
    this.#pending = undefined;
    this.#lastWrite = this.now();
    try {
      writeStatus(this.path, this.#doc, this.secrets);
    } catch {
      // /run not writable (a test, a debug run as non-root): the status command says the file is missing.
    }
  }
}
