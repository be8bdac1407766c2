/**
 * Messages of metalstack.infra.v2 BootService and EventService as protobuf JSON
 * (lowerCamelCase; proto3 omits default values, so answers default every field;
 * 64-bit integers arrive as strings). Mirrors FIELD-NOTES §6 and docs/apiserver.md.
 */
import { z } from "zod";

export const BOOT_SERVICE = "metalstack.infra.v2.BootService";
export const EVENT_SERVICE = "metalstack.infra.v2.EventService";

/** protobuf JSON int64/uint64: a decimal string or a number. */
const int64 = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/, "expected a decimal integer")]);
const uuid = z.string().min(1, "expected a machine uuid");

export const MachineNeighbor = z.object({ mac: z.string(), name: z.string().optional(), identifier: z.string().optional(), hostname: z.string().optional() });
export const MachineNic = z.object({
  mac: z.string(),
  name: z.string(),
  identifier: z.string().optional(),
  vendor: z.string().optional(),
  model: z.string().optional(),
  speed: int64.optional(),
  neighbors: z.array(MachineNeighbor).default([]),
});
export const MachineHardware = z.object({
  memory: int64,
  disks: z.array(z.object({ name: z.string(), size: int64 })).default([]),
  nics: z.array(MachineNic).default([]),
  cpus: z.array(z.object({ vendor: z.string(), model: z.string(), cores: z.number().int(), threads: z.number().int() })).default([]),
  gpus: z.array(z.object({ vendor: z.string(), model: z.string() })).default([]),
});
export const MachineBios = z.object({ version: z.string(), vendor: z.string(), date: z.string() });
export const MachineBmc = z.object({
  address: z.string(),
  mac: z.string(),
  user: z.string(),
  password: z.string(),
  interface: z.string(),
  version: z.string(),
  powerState: z.string(),
});
export const MachineFru = z.record(z.string(), z.string());

export const RegisterRequest = z.object({
  uuid,
  hardware: MachineHardware,
  bios: MachineBios.optional(),
  bmc: MachineBmc.optional(),
  fru: MachineFru.optional(),
  tags: z.array(z.string()).default([]),
  metalHammerVersion: z.string(),
  partition: z.string(),
});
export const RegisterResponse = z.object({ uuid, size: z.string().default(""), partition: z.string().default("") });

export const WaitRequest = z.object({ uuid });
/** The allocation is large and owned by the provisioning flow; kept as an object here. */
export const WaitResponse = z.object({ allocation: z.record(z.string(), z.unknown()).optional() });

export const InstallationSucceededRequest = z.object({ uuid, consolePassword: z.string() });
export const InstallationSucceededResponse = z.object({});

export const SuperUserPasswordRequest = z.object({ uuid });
export const SuperUserPasswordResponse = z.object({ featureDisabled: z.boolean().default(false), superUserPassword: z.string().default("") });

export const BootingRequest = z.object({ uuid, partition: z.string() });
export const BootingResponse = z.object({});

export const PROVISIONING_EVENTS = [
  "Alive",
  "Crashed",
  "PXE Booting",
  "Planned Reboot",
  "Preparing",
  "Registering",
  "Waiting",
  "Installing",
  "Booting New Kernel",
  "Phoned Home",
  "Machine Reclaim",
] as const;
export const ProvisioningEvent = z.object({ time: z.string(), event: z.enum(PROVISIONING_EVENTS), message: z.string().default("") });
export const EventSendRequest = z.object({ events: z.record(z.string(), ProvisioningEvent) });
export const EventSendResponse = z.object({ events: int64.default(0), failed: z.array(z.string()).default([]) });

/** Method name -> request and response schema, per service. */
export const METHODS = {
  [`${BOOT_SERVICE}/Register`]: { req: RegisterRequest, res: RegisterResponse },
  [`${BOOT_SERVICE}/Wait`]: { req: WaitRequest, res: WaitResponse },
  [`${BOOT_SERVICE}/InstallationSucceeded`]: { req: InstallationSucceededRequest, res: InstallationSucceededResponse },
  [`${BOOT_SERVICE}/SuperUserPassword`]: { req: SuperUserPasswordRequest, res: SuperUserPasswordResponse },
  [`${BOOT_SERVICE}/Booting`]: { req: BootingRequest, res: BootingResponse },
  [`${EVENT_SERVICE}/Send`]: { req: EventSendRequest, res: EventSendResponse },
} as const;
