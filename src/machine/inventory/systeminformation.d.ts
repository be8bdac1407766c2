/** Types for the one systeminformation module the agent imports directly (memory.ts). */
declare module "systeminformation/lib/memory.js" {
  import type { Systeminformation } from "systeminformation";
  export function mem(): Promise<Systeminformation.MemData>;
}
