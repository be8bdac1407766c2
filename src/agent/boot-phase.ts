/**
 * The first phase: from the network to the hand-off (network unless started at boot,
 * clock, metal-boot, apiserver, image cache, hand-off), or resumed from what an earlier
 * run left (handoff.json and the token file). Its result, `Booted`, is everything the
 * provision phase needs: the boot facts, the services whose HTTP client trusts the
 * boot's CAs (a type of its own: boot-facts.ts BootedServices), the apiserver client.
 */
import type { MachineId } from "../clients/metal-boot/machine-uuid.ts";
import type { Config } from "../config/config.ts";
import { api as apiStage, connectApi, type Api } from "./api-stage.ts";
import { afterBoot, type BootFacts, type BootedServices } from "./boot-facts.ts";
import { clock as clockStage } from "./clock-stage.ts";
import { handoff } from "./handoff-stage.ts";
import { image } from "./image-stage.ts";
import { metalBoot } from "./metal-boot-stage.ts";
import { network } from "./network-stage.ts";
import { resume } from "./resume.ts";
import type { Services } from "./services.ts";
import type { StageRun } from "./stage-run.ts";

/** The boot facts, the services derived from them for every later stage, the apiserver client. */
export interface Booted {
  readonly facts: BootFacts;
  readonly after: BootedServices;
  readonly api: Api;
}

/** The machine id as read at the start: its error is the boot stage's. */
export type IdRead = { readonly ok: true; readonly id: MachineId } | { readonly ok: false; readonly error: unknown };

/** Up to the hand-off: an exec hand-off has replaced the agent, or the built-in flow goes on. */
export type BootOutcome = { readonly kind: "handed_off" } | ({ readonly kind: "builtin" } & Booted);

/** Network (unless started at boot), clock, boot, api, image, hand-off. */
export async function boot(config: Config, s: Services, run: StageRun, start: { readonly withNetwork: boolean; readonly id: IdRead }): Promise<BootOutcome> {
  const net = start.withNetwork ? await run.stage("network", "IPv6 bring-up: SLAAC, DAD, RA DNS", () => network(config, s)) : undefined;
  const checked = await run.stage("clock", "check the clock against METAL_NTP_SERVERS (SNTP) before any TLS", () => clockStage(config, s));
  run.clock = checked;
  const facts = await run.stage("boot", "config and machine token from metal-boot", async () => {
    if (!start.id.ok) throw start.id.error;
    return await metalBoot(config, { id: start.id.id, network: net, clock: checked }, s);
  });
  run.clock = facts.clock;
  const after = afterBoot(s, facts);
  const a = await run.stage("api", "the apiserver answers (VersionService/Get)", () => apiStage(facts.boot, after));
  await run.stage("image", "probe the image cache", () => image(facts.boot, after));
  // An exec hand-off closes s.http before execve, and with it the client derived from it.
  await run.stage("handoff", "write handoff.json and hand over to the next stage", () =>
    handoff(config, { network: net, boot: facts.boot, apiserverVersion: a.version?.version, stagesMs: run.stagesMs }, s),
  );
  return config.handoff.kind === "builtin" ? { kind: "builtin", facts, after, api: a } : { kind: "handed_off" };
}

/** Resumed at register or wait: the boot facts from handoff.json, the apiserver client without a call. */
export async function resumed(at: "register" | "wait", s: Services): Promise<Booted> {
  const facts = await resume(at, s);
  // The NICs of the run that wrote handoff.json carry this one's connections too.
  if (facts.network) s.uplinks.follow(facts.network.interfaces.map((i) => i.name));
  const after = afterBoot(s, facts);
  return { facts, after, api: connectApi(facts.boot, after) };
}
