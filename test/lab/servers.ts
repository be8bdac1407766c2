/**
 * The lab's servers: processes started inside the lab netns before QEMU, listening
 * on IPv6 only. This is the hook the stand-ins (test/lab/standins/: metal-boot,
 * apiserver, image cache) plug into: add an entry to labServers(). Until they exist,
 * a placeholder HTTP server answers on metal-boot's address and logs every request.
 */
import { METAL_BOOT_PORT, SERVICE_ADDR } from "./plan.ts";

export interface LabServerEnv {
  /** The services address (on the netns loopback, routed to the guest through the RA's default route). */
  readonly addr: string;
  /** Directory for this run's files (logs, keys). */
  readonly dir: string;
}

export interface LabServer {
  readonly name: string;
  readonly argv: readonly string[];
  /** TCP port it listens on; the lab waits for it (from /proc/<pid>/net/tcp6) before booting. */
  readonly port: number;
}

const BUN = process.execPath;

export function labServers(env: LabServerEnv): LabServer[] {
  return [
    {
      name: "placeholder-metal-boot",
      argv: [BUN, `${import.meta.dir}/placeholder-server.ts`, "--addr", env.addr, "--port", String(METAL_BOOT_PORT), "--name", "placeholder-metal-boot"],
      port: METAL_BOOT_PORT,
    },
  ];
}

export const DEFAULT_SERVER_ENV = { addr: SERVICE_ADDR };
