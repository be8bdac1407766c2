/**
 * The two phases' types: the services before boot and after it are different types, so
 * a post-boot stage handed the pre-boot services does not compile (`make typecheck` runs
 * over test/: an @ts-expect-error that stops being an error fails it). At run time,
 * afterBoot derives the client from the boot's CAs, and nothing else changes.
 */
import { describe, expect, test } from "bun:test";
import { api, connectApi } from "../../src/agent/api-stage.ts";
import { afterBoot, type BootFacts } from "../../src/agent/boot-facts.ts";
import { image } from "../../src/agent/image-stage.ts";
import { install } from "../../src/agent/install-stage.ts";
import type { Services } from "../../src/agent/services.ts";
import type { HttpClient, TrustedCa } from "../../src/clients/http/http-client.ts";
import type { Boot } from "../../src/clients/metal-boot/boot.ts";

const CA: TrustedCa = { pem: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", name: "metal-boot config ca" };

/** A base client that records what it was asked to trust. */
function baseServices() {
  const trusted: (readonly TrustedCa[])[] = [];
  const derived = { derived: true } as unknown as HttpClient;
  const http = { trusting: (cas: readonly TrustedCa[]) => (trusted.push(cas), derived) } as unknown as HttpClient;
  const s = { http, log: {}, now: () => new Date(0), sysRoot: "/sys" } as unknown as Services;
  return { s, trusted, derived };
}

describe("the boot and provision phases' services", () => {
  test("a post-boot stage does not compile with the pre-boot services; with afterBoot's it does", () => {
    const { s } = baseServices();
    const boot = {} as Boot;
    const booted = afterBoot(s, { trust: [CA] } as unknown as BootFacts);
    // Typed only, never called: the point is what compiles.
    const calls = [
      // @ts-expect-error the pre-boot client trusts METAL_CA alone, not metal-boot's CA
      () => api(boot, s),
      // @ts-expect-error the same for the apiserver client the resumed flow builds
      () => connectApi(boot, s),
      // @ts-expect-error the image cache probe
      () => image(boot, s),
      // @ts-expect-error the image download
      () => install({} as never, boot, {} as never, {}, {} as never, [], s),
      () => api(boot, booted),
      () => image(boot, booted),
    ];
    expect(calls).toHaveLength(6);
  });

  test("afterBoot: the client trusts the boot's CAs, every other service is the same object", () => {
    const { s, trusted, derived } = baseServices();
    const booted = afterBoot(s, { trust: [CA] } as unknown as BootFacts);
    expect(trusted).toEqual([[CA]]);
    expect(booted.http as unknown).toBe(derived);
    expect(booted.log).toBe(s.log);
    expect(booted.now).toBe(s.now);
    expect(booted.sysRoot).toBe("/sys");
  });
});
