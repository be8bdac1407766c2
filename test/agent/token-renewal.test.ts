/**
 * The machine token renewed when it expires: the stand-in apiserver refuses a token past its
 * exp as `unauthenticated`; the agent's client, whose token had worked, fetches a new one from
 * metal-boot's /config/<uuid> and retries once (unary calls and a stream's open); a token
 * that never worked is not renewed. The new token reaches the 0600 token file and status.json
 * by its expiry; no token reaches a log line. HTTPS on loopback, no root.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { renewingToken } from "../../src/agent/token-renewal.ts";
import { Operations } from "../../src/ops/operations/operations.ts";
import { ConnectClient } from "../../src/clients/api/connect-client.ts";
import { callStream, callUnary } from "../../src/clients/api/rpc.ts";
import type { Boot } from "../../src/clients/metal-boot/boot.ts";
import { fetchBootConfig } from "../../src/clients/metal-boot/metal-boot-client.ts";
import { MachineToken } from "../../src/clients/metal-boot/machine-token.ts";
import { HttpClient } from "../../src/clients/http/http-client.ts";
import { BootService } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { waitFor } from "../../lab/base/wait.ts";
import type { Standins } from "../../lab/standins/standins.ts";
import { loopbackStandins, standinsSkip } from "../integration/api/suite.ts";
import { prerequisites } from "../helpers/prerequisites.ts";

const UUID = "4c4c4544-0042-3510-8051-000000000360";
const skip = standinsSkip();
prerequisites("the token renewal test", [skip]);

let box: Awaited<ReturnType<typeof loopbackStandins>>;
let st: Standins;
beforeAll(async () => {
  if (skip) return;
  box = await loopbackStandins("mh-renew-", [{ uuid: UUID, partition: "fra-equ01" }]);
  st = box.st;
});
afterAll(async () => {
  await box?.stop();
});

/** The agent's client for a token fetched from metal-boot now (lifetime `ttlS`), its log lines, status file and token file. */
async function machine(ttlS: number) {
  const lines: Record<string, unknown>[] = [];
  const secrets = new SecretSet();
  const log = createLogger({ level: "info", format: "json", write: (l) => lines.push(JSON.parse(l)), secrets });
  const http = new HttpClient({ caBundle: st.bootCa.certFile, allowHttp: false, log }).trusting([{ pem: st.apiCa.pem, name: "the api CA" }]);
  const ops = new Operations({ secrets, statusPath: join(box.dir, `status-${ttlS}.json`) });
  st.metalBoot.tokenTtlS = ttlS;
  const got = await fetchBootConfig(http, new URL(st.urls.boot), UUID, secrets);
  const boot = {
    uuid: UUID,
    metalBootUrl: `${st.urls.boot}/`,
    apiserverUrl: got.config.metal_apiserver_url,
    token: new MachineToken(got.config.metal_apiserver_token_for_hammer),
    tokenFile: join(box.dir, `token-${ttlS}`),
  } as Boot;
  const bearer = renewingToken(boot, { http, secrets, log, ops });
  return { lines, ops, boot, bearer, client: new ConnectClient(http, boot.apiserverUrl, bearer), first: boot.token.reveal() };
}

const superUser = (c: ConnectClient) => callUnary(c, BootService.method.superUserPassword, { uuid: UUID });
const procedures = () =>
  st.calls.filter((c) => c.procedure.endsWith("/SuperUserPassword") || c.procedure.endsWith("/Wait")).map((c) => `${c.procedure.split("/")[1]} ${c.refused ?? "ok"}`);

describe.skipIf(skip !== undefined)("the machine token, renewed when it expires", () => {
  test("a token that worked and expired is renewed from metal-boot and the call retried once: token file, status and log name the new expiry", async () => {
    st.calls.length = 0;
    const m = await machine(1);
    await superUser(m.client);
    // A later token lives long: the retry must get through.
    st.metalBoot.tokenTtlS = 600;
    await waitFor(() => st.tokens.expired(m.first), 3_000, "the first token's exp");
    const configsBefore = st.log.of("boot").length;
    await superUser(m.client);
    expect(procedures()).toEqual(["SuperUserPassword ok", "SuperUserPassword unauthenticated", "SuperUserPassword ok"]);
    expect(st.log.of("boot").length).toBe(configsBefore + 1);
    expect(m.bearer.renewals).toBe(1);
    const renewed = m.lines.filter((l) => l.event === "boot.token.renewed");
    expect(renewed).toHaveLength(1);
    expect(renewed[0]).toMatchObject({ level: 40, renewals: 1, previousExpiresAt: m.boot.token.info.expiresAt, tokenExpiresAt: m.bearer.token.info.expiresAt });
    expect(Date.parse(String(renewed[0]?.tokenExpiresAt)) - Date.parse(String(renewed[0]?.previousExpiresAt))).toBeGreaterThan(500_000);
    expect(readFileSync(m.boot.tokenFile, "utf8")).toBe(m.bearer.value());
    expect(statSync(m.boot.tokenFile).mode & 0o777).toBe(0o600);
    m.ops.status.flush();
    expect(JSON.parse(readFileSync(join(box.dir, "status-1.json"), "utf8")).token).toEqual({
      kind: "jwt",
      expiresAt: m.bearer.token.info.expiresAt,
      renewals: 1,
      renewedAt: expect.any(String),
    });
    const printed = JSON.stringify(m.lines);
    expect([m.first, m.bearer.value()].filter((t) => printed.includes(t))).toEqual([]);
  });

  test("a Wait opened with an expired token that had worked is opened again with a renewed one and gets the allocation", async () => {
    st.calls.length = 0;
    st.machines.reset();
    st.machines.allocate(UUID, { uuid: UUID, hostname: "renewed" });
    const m = await machine(1);
    await superUser(m.client);
    st.metalBoot.tokenTtlS = 600;
    await waitFor(() => st.tokens.expired(m.first), 3_000, "the first token's exp");
    for await (const w of callStream(m.client, BootService.method.wait, { uuid: UUID })) {
      expect(w.allocation?.hostname).toBe("renewed");
      break;
    }
    expect(procedures()).toEqual(["SuperUserPassword ok", "Wait unauthenticated", "Wait ok"]);
  });

  test("a token that never worked is not renewed: the refusal is the auth error, metal-boot is not asked again", async () => {
    st.calls.length = 0;
    const m = await machine(1);
    await waitFor(() => st.tokens.expired(m.first), 3_000, "the first token's exp");
    st.metalBoot.tokenTtlS = 600;
    const configsBefore = st.log.of("boot").length;
    const e = await superUser(m.client).then(
      () => undefined,
      (x: unknown) => x as { code?: string; connectCode?: string },
    );
    expect([e?.code, e?.connectCode]).toEqual(["auth", "unauthenticated"]);
    expect(st.log.of("boot").length).toBe(configsBefore);
    expect(procedures()).toEqual(["SuperUserPassword unauthenticated"]);
  });
});
