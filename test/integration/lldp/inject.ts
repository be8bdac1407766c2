#!/usr/bin/env bun
/**
 * Sends raw Ethernet frames on an interface of the namespace it runs in
 * (`ip netns exec <peer> bun inject.ts <ifname> <hex> [<hex> ...]`), through the agent's
 * own packet socket code: how the tests put hand-made (malformed, hostile) LLDP frames
 * on the wire from the "switch" side. Exit 0 when every frame was sent.
 */
import { readFileSync } from "node:fs";
import { ETH_P_LLDP } from "../../../src/network/lldp/lldpdu.ts";
import { errnoName } from "../../../src/platform/sys/errno.ts";
import { PacketSocket } from "../../../src/platform/sys/packet-socket.ts";

const [ifname, ...frames] = process.argv.slice(2);
if (!ifname || frames.length === 0) {
  process.stderr.write("usage: inject.ts <ifname> <hex frame>...\n");
  process.exit(2);
}
const ifindex = Number(readFileSync(`/sys/class/net/${ifname}/ifindex`, "utf8").trim());
const sock = PacketSocket.open({ ifindex, ifname, ethertype: ETH_P_LLDP });
try {
  for (const hex of frames) {
    const e = sock.send(Uint8Array.from(Buffer.from(hex, "hex")));
    if (e !== undefined) {
      process.stderr.write(`send on ${ifname}: ${errnoName(e)}\n`);
      process.exit(1);
    }
  }
} finally {
  sock.close();
}
