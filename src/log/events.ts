/**
 * The stable event vocabulary: every log line the agent writes at info or above
 * carries one `event` from this list, so an operator can grep a serial console
 * (`grep '"event":"net.dad.failed"'`). docs/events.md lists them; add here first.
 */
export const EVENTS = {
  "agent.start": "the agent started (version, mode, PID)",
  "agent.config": "the validated configuration (secrets redacted)",
  "agent.stage": "a stage of the boot flow begins",
  "agent.fatal": "a fatal error ended the flow (code, exit code, message)",
  "agent.not_built": "the flow reached a stage that is not built yet",
  "agent.done": "the flow finished",
  "init.mount": "PID 1 mounted a filesystem",
  "init.module": "PID 1 loaded a kernel module",
  "init.reboot": "PID 1 reboots or powers off",
  "init.shell": "PID 1 starts the debug shell",
  "net.select": "interfaces selected for bring-up",
  "net.sysctl": "IPv6 sysctls written for an interface",
  "net.link.up": "administrative link-up requested",
  "net.link.carrier": "carrier detected",
  "net.link.down": "carrier lost",
  "net.link.nocarrier": "no carrier within the carrier timeout: the interface is given up (reported, not waited on)",
  "net.ll.ready": "link-local address usable (DAD done)",
  "net.ra.seen": "a router advertisement was seen",
  "net.addr.tentative": "a global address is tentative (DAD running)",
  "net.dad.done": "a global address passed DAD and is usable",
  "net.dad.failed": "duplicate address detected",
  "net.route.default": "default route via a router learned",
  "net.dns": "DNS servers/search list from the RA changed",
  "net.ready": "the network is ready per the policy",
  "net.timeout": "the network was not ready in time",
  "http.retry": "an HTTP request is retried (what, attempt, delay)",
  "boot.config": "config and token fetched from metal-boot",
  "api.call": "an apiserver call completed",
  "image.probe": "the image cache was probed",
  "handoff.write": "the hand-off file was written",
  "handoff.exec": "the next stage is exec'd",
  "provision.inventory": "the hardware inventory for Register was collected (counts, notes)",
  "provision.event": "a provisioning event was sent (EventService/Send: Preparing, Registering, Waiting)",
  "provision.register": "the machine registered (BootService/Register answered uuid, size, partition)",
  "provision.wait": "waiting for an allocation (BootService/Wait), with the bound",
  "provision.wait.keepalive": "a Wait message without an allocation (keepalive)",
  "provision.wait.reconnect": "the Wait stream broke; reconnecting after a jittered delay",
  "provision.wait.timeout": "no allocation within METAL_WAIT_TIMEOUT",
  "provision.allocation": "an allocation arrived (logged with secrets redacted)",
  "kconfig.check": "kernel config check result",
} as const;

export type EventName = keyof typeof EVENTS;
