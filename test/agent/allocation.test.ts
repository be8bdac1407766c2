import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { MachineAllocationSchema } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { redactAllocation, summarizeAllocation } from "../../src/agent/allocation.ts";

const ALLOC = create(MachineAllocationSchema, {
  uuid: "u1",
  hostname: "worker-1",
  project: "p-1",
  image: { id: "debian-12.0.20251101", url: "https://images.example/metal-os/debian/12/img.tar.lz4" },
  filesystemLayout: { id: "default" },
  userdata: "#cloud-config\npassword: s3cret\n",
  sshPublicKeys: ["ssh-ed25519 AAAA user@host"],
});

describe("allocation in the log", () => {
  test("shown as protojson; user data is redacted to its length; the rest is kept", () => {
    expect(redactAllocation(ALLOC)).toEqual({
      uuid: "u1",
      hostname: "worker-1",
      project: "p-1",
      image: { id: "debian-12.0.20251101", url: "https://images.example/metal-os/debian/12/img.tar.lz4" },
      filesystemLayout: { id: "default" },
      userdata: "[redacted] (31 chars)",
      sshPublicKeys: ["ssh-ed25519 AAAA user@host"],
    });
  });

  test("the summary lifts hostname, project, image id and URL, filesystem layout", () => {
    expect(summarizeAllocation(ALLOC)).toEqual({
      hostname: "worker-1",
      project: "p-1",
      image: "debian-12.0.20251101",
      imageUrl: "https://images.example/metal-os/debian/12/img.tar.lz4",
      filesystemLayout: "default",
    });
    expect(summarizeAllocation(create(MachineAllocationSchema, {}))).toEqual({ hostname: null, project: null, image: null, imageUrl: null, filesystemLayout: null });
  });
});
