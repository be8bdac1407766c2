/**
 * The apiserver stand-in's machine state: what each machine registered, its
 * allocation, and the Wait streams open for it. `allocate` sends the allocation to
 * every open Wait of that machine (later Waits get it at once); `breakWaits` cuts
 * the open streams mid-way (no end-of-stream message), as a proxy or a restarting
 * apiserver would. With `keepaliveMs` > 0 an open Wait sends an empty message
 * (no allocation) at that interval.
 */
export interface OpenWait {
  readonly uuid: string;
  /** Messages sent on this stream so far (keepalives included). */
  readonly sent: number;
  send(value: unknown): void;
  end(): void;
  cut(): void;
}

export class MachineBook {
  /** uuid -> the last Register request. */
  readonly registered = new Map<string, Record<string, unknown>>();
  readonly allocations = new Map<string, Record<string, unknown>>();
  readonly open = new Set<OpenWait>();
  keepaliveMs = 0;
  /** Size the Register answer names. */
  size = "v1-small-x86";

  allocate(uuid: string, allocation: Record<string, unknown>): void {
    this.allocations.set(uuid, allocation);
    for (const w of [...this.open]) {
      if (w.uuid !== uuid) continue;
      w.send({ allocation });
      w.end();
    }
  }

  /** Cuts every open Wait stream; returns how many. */
  breakWaits(): number {
    const n = this.open.size;
    for (const w of [...this.open]) w.cut();
    return n;
  }

  reset(): void {
    this.registered.clear();
    this.allocations.clear();
    this.breakWaits();
    this.keepaliveMs = 0;
  }
}
