/** What IPv6 bring-up reports (net up, the network stage, handoff.json): produced by bringup.ts. */
export interface InterfaceSummary {
  readonly name: string;
  readonly mac: string;
  /** Usable (DAD passed) global addresses with prefix length, e.g. "2001:db8::5054:ff:fe12:3456/64". */
  readonly addresses: readonly string[];
  /** Link-local addresses of the routers that gave a default route via this interface. */
  readonly defaultRouters: readonly string[];
  readonly state: string;
}

export interface NetworkSummary {
  readonly interfaces: readonly InterfaceSummary[];
  readonly dns: { readonly servers: readonly string[]; readonly search: readonly string[] };
  /** Milliseconds from the start of bring-up to each milestone (e.g. "eth0.dad.done"). */
  readonly timingsMs: Readonly<Record<string, number>>;
}
