/**
 * The BMC record the apiserver stores from a Register, as upstream builds it
 * (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:804-817: an IPMI record from
 * the request's `bmc`, the zero record when it has none; :819-830 the FRU from `fru`; :871 the
 * stored record replaced by it, whatever it held). So a Register without `bmc` clears the
 * stored address, MAC and credentials, one with an empty user and password clears the
 * credentials. Pure.
 */

export interface BmcRecord {
  readonly address: string;
  readonly mac: string;
  readonly user: string;
  readonly password: string;
  readonly interface: string;
  readonly version: string;
  readonly powerState: string;
  readonly fru: Readonly<Record<string, string>>;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The stored record after a Register request (protojson, as the stand-in decoded it). */
export function registeredBmcRecord(request: Record<string, unknown>): BmcRecord {
  const b = (request.bmc ?? {}) as Record<string, unknown>;
  const fru = (request.fru ?? {}) as Record<string, unknown>;
  return {
    address: str(b.address),
    mac: str(b.mac),
    user: str(b.user),
    password: str(b.password),
    interface: str(b.interface),
    version: str(b.version),
    powerState: str(b.powerState),
    fru: Object.fromEntries(Object.entries(fru).filter(([, v]) => typeof v === "string")) as Record<string, string>,
  };
}
