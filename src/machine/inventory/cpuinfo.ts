/**
 * /proc/cpuinfo -> one entry per CPU package (socket): vendor, model, cores, threads.
 * Pure. x86 lists "physical id", "core id" and "cpu cores" per logical CPU; other
 * architectures (and some hypervisors) omit them, then all logical CPUs form one
 * package and every logical CPU counts as a core.
 */
export interface CpuPackage {
  readonly vendor: string;
  readonly model: string;
  readonly cores: number;
  readonly threads: number;
}

type Block = ReadonlyMap<string, string>;

function blocks(text: string): Block[] {
  return text
    .split(/\n\s*\n/)
    .map(
      (b) =>
        new Map(
          b.split("\n").flatMap((l) => {
            const i = l.indexOf(":");
            return i < 0 ? [] : [[l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string]];
          }),
        ),
    )
    .filter((m) => m.has("processor"));
}

export function parseCpuinfo(text: string): CpuPackage[] {
  const byPackage = new Map<string, Block[]>();
  for (const b of blocks(text)) {
    const id = b.get("physical id") ?? "0";
    byPackage.set(id, [...(byPackage.get(id) ?? []), b]);
  }
  return [...byPackage.entries()]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, cpus]) => {
      const first = cpus[0] ?? new Map<string, string>();
      const coreIds = new Set(cpus.map((c) => c.get("core id")).filter((v) => v !== undefined));
      const declared = Number(first.get("cpu cores"));
      const cores = Number.isInteger(declared) && declared > 0 ? declared : coreIds.size > 0 ? coreIds.size : cpus.length;
      return {
        // "CPU implementer"/"model name" differ by arch; x86 has vendor_id and model name.
        vendor: first.get("vendor_id") ?? first.get("cpu implementer") ?? "",
        model: first.get("model name") ?? first.get("cpu model") ?? first.get("cpu") ?? "",
        cores,
        threads: cpus.length,
      };
    });
}
