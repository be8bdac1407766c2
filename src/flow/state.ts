/**
 * What the stages of the boot flow hand to each other. Each stage fills its part;
 * the hand-off writes the whole as /run/metal/handoff.json.
 */
import type { MachineToken } from "../boot/machine-token.ts";

export interface InterfaceSummary {
  readonly name: string;
  readonly mac: string;
  /** Usable (DAD passed) global addresses with prefix length, e.g. "2001:db8::5054:ff:fe12:3456/64". */
  readonly addresses: readonly string[];
  /** Link-local addresses of the routers that gave a default route via this interface. */
  readonly defaultRouters: readonly string[];
  readonly state: string;
}

export interface NetworkSummary {
  readonly interfaces: readonly InterfaceSummary[];
  readonly dns: { readonly servers: readonly string[]; readonly search: readonly string[] };
  /** Milliseconds from the start of bring-up to each milestone (e.g. "eth0.dad.done"). */
  readonly timingsMs: Readonly<Record<string, number>>;
}

/** What metal-boot gave (stage "boot"). The token itself stays in `token` (never printed). */
export interface BootSummary {
  readonly uuid: string;
  readonly uuidSource: string;
  readonly partition: string;
  readonly metalBootUrl: string;
  readonly apiserverUrl: URL;
  readonly imageCacheUrl: URL;
  readonly imagePath: string | undefined;
  readonly ntpServers: readonly string[];
  readonly token: MachineToken;
  readonly tokenFile: string;
  readonly latencyMs: number;
  readonly address: string | undefined;
}

/** The apiserver answered with our token (stage "api"). */
export interface ApiSummary {
  readonly latencyMs: number;
  readonly address: string | undefined;
}

/** The image cache answered (stage "image"). */
export interface ImageSummary {
  readonly url: string;
  readonly size: number | undefined;
  readonly checksum: string | undefined;
  readonly latencyMs: number;
  readonly address: string | undefined;
}

/** BootService/Register answered (stage "register"). */
export interface RegistrationSummary {
  readonly uuid: string;
  readonly size: string;
  readonly partition: string;
}

export interface FlowState {
  network?: NetworkSummary;
  boot?: BootSummary;
  api?: ApiSummary;
  image?: ImageSummary;
  registration?: RegistrationSummary;
  /** The allocation from BootService/Wait (stage "wait"), as the apiserver sent it. */
  allocation?: Readonly<Record<string, unknown>>;
  /** Milliseconds since the flow began, per finished stage. */
  readonly stageTimesMs: Record<string, number>;
}
