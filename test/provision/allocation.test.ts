import { describe, expect, test } from "bun:test";
import { redactAllocation, summarizeAllocation } from "../../src/provision/allocation.ts";

const ALLOC = {
  uuid: "u1",
  hostname: "worker-1",
  project: "p-1",
  image: { id: "debian-12.0.20251101" },
  role: "MACHINE_ROLE_MACHINE",
  consolePassword: "hunter2hunter2",
  userdata: "#cloud-config\npassword: s3cret\n",
  sshPublicKeys: ["ssh-ed25519 AAAA user@host"],
  networks: [{ network: "internet", ips: ["2001:db8::5"], vrfToken: "abcdefgh" }],
};

describe("allocation in the log", () => {
  test("secret-named fields and user data are redacted; the rest is kept", () => {
    expect(redactAllocation(ALLOC)).toEqual({
      uuid: "u1",
      hostname: "worker-1",
      project: "p-1",
      image: { id: "debian-12.0.20251101" },
      role: "MACHINE_ROLE_MACHINE",
      consolePassword: "[redacted]",
      userdata: "[redacted] (31 chars)",
      sshPublicKeys: ["ssh-ed25519 AAAA user@host"],
      networks: [{ network: "internet", ips: ["2001:db8::5"], vrfToken: "[redacted]" }],
    });
  });

  test("the summary lifts hostname, project, image id and role", () => {
    expect(summarizeAllocation(ALLOC)).toEqual({ hostname: "worker-1", project: "p-1", image: "debian-12.0.20251101", role: "MACHINE_ROLE_MACHINE" });
    expect(summarizeAllocation({ image: "ubuntu-24.04" })).toEqual({ hostname: null, project: null, image: "ubuntu-24.04", role: null });
  });
});
