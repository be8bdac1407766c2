/**
 * Run inside a namespace by overrun.test.ts: an event socket with a tiny receive
 * buffer, then a burst of link changes; prints what the EventSource delivered.
 */
import { EventSource } from "../../../src/netlink/event-source.ts";
import * as K from "../../../src/netlink/constants.ts";

let overruns = 0;
let links = 0;
let failed: string | undefined;
const src = await EventSource.start(
  {
    messages: (msgs) => void (links += msgs.filter((m) => m.body.kind === "link").length),
    overrun: () => void overruns++,
    failed: (e) => void (failed = e.message),
  },
  [K.RTNLGRP_LINK, K.RTNLGRP_IPV6_IFADDR, K.RTNLGRP_IPV6_ROUTE],
  5000,
  1, // the kernel rounds this up to its minimum (a few KiB)
);
const batch = Array.from({ length: 150 }, (_, i) => `link add mhnov${i} type veth peer name mhnow${i}`).join("\n") + "\n";
const p = Bun.spawn(["ip", "-batch", "-"], { stdin: new TextEncoder().encode(batch), stdout: "ignore", stderr: "inherit" });
await p.exited;
const before = links;
// After the burst, single events must still arrive.
Bun.spawnSync(["ip", "link", "set", "mhnov0", "up"]);
const end = performance.now() + 3000;
while (links === before && performance.now() < end) await Bun.sleep(10);
await src.stop();
console.log(JSON.stringify({ overruns, links, after: links - before, failed: failed ?? null }));
process.exit(0);
