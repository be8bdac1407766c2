import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { NetlinkSocket } from "../../../src/network/netlink/socket.ts";

describe("rtnetlink request socket", () => {
  test("a link dump from the kernel includes the loopback device", () => {
    const s = NetlinkSocket.open();
    try {
      const names = s.dumpLinks().flatMap((b) => (b.kind === "link" ? [b.name] : []));
      expect(names).toContain("lo");
    } finally {
      s.close();
    }
  });

  test("a kernel error comes back as a named errno in an AgentError('netlink'), exit 13", () => {
    const s = NetlinkSocket.open();
    try {
      s.setLinkUp(0x7ffffff0, "no-such-link"); // no such ifindex: nothing is changed
      throw new Error("expected an error");
    } catch (e) {
      expect(e).toBeInstanceOf(AgentError);
      expect((e as AgentError).code).toBe("netlink");
      expect((e as AgentError).exitCode).toBe(13);
      expect((e as AgentError).message).toMatch(/^set link no-such-link up \(RTM_NEWLINK\): (ENODEV|EPERM)/);
    } finally {
      s.close();
    }
  });
});
