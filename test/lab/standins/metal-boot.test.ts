/**
 * metal-boot's config endpoint mints each machine its own token, also when many ask at once.
 * pixie writes each token into one shared config before marshalling it
 * (metal-stack/pixie@8b0f1da5 pixiecore/http.go:253), so two machines asking together can get
 * each other's token; the stand-in builds a fresh answer per request. 64 uuids at once over
 * HTTPS on loopback: every answer's token is for the uuid it was asked for (its JWT subject and
 * machine role, and the issuer's record), and no token is handed out twice.
 */
import { describe, expect, test } from "bun:test";
import { loopbackStandins } from "../../helpers/loopback-standins.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const openssl = Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0 ? undefined : "needs openssl";
prerequisites("the metal-boot stand-in's concurrency test", [openssl]);

const box = loopbackStandins("mh-boot-", openssl === undefined);

const uuidOf = (i: number) => `4c4c4544-0042-3510-8051-${i.toString(16).padStart(12, "0")}`;
const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString()) as { sub: string; machine_roles: Record<string, string> };

describe.skipIf(openssl !== undefined)("metal-boot stand-in: GET /config/{uuid} under concurrency", () => {
  const st = () => box.st;
  test("64 machines at once each get a token for their own uuid", async () => {
    const uuids = Array.from({ length: 64 }, (_, i) => uuidOf(i + 1));
    const answers = await Promise.all(
      uuids.map(async (uuid) => {
        const r = await fetch(`${st().urls.boot}/config/${uuid}`, { tls: { ca: st().bootCa.pem } });
        const c = (await r.json()) as { metal_apiserver_token_for_hammer: string };
        return { uuid, status: r.status, token: c.metal_apiserver_token_for_hammer };
      }),
    );
    const wrong = answers.filter(
      (a) => a.status !== 200 || st().tokens.verify(a.token) !== a.uuid || claims(a.token).sub !== a.uuid || Object.keys(claims(a.token).machine_roles).join() !== a.uuid,
    );
    expect(wrong.map((a) => a.uuid)).toEqual([]);
    expect(new Set(answers.map((a) => a.token)).size).toBe(uuids.length);
  });
});
