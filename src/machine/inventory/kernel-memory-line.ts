/**
 * The kernel's boot line on memory, `Memory: <x>K/<y>K available (...)`, as metal-hammer's
 * ghw reads it: the pattern `Memory:\s+\d+K\/(\d+)K`, unanchored, on each line of the log
 * text, the first line whose number is positive wins, in bytes as y × 1024
 * (jaypipes/ghw@ae895d6 pkg/memory/memory_linux.go:40, :221-231, :259-265).
 *
 * y is the kernel's present pages (get_num_physpages(): RAM the firmware map lists, holes
 * not counted), x the free pages at that moment; both in KiB (the kernel's K() shifts
 * pages by PAGE_SHIFT-10). The line is printed by mem_init_print_info: mm/page_alloc.c
 * from 3.12 (before, each architecture printed its own `Memory: ...k/...k available`
 * with a lowercase k, which the pattern does not take, nor does ghw), mm/mm_init.c since
 * 6.4 (and late, from page_alloc_init_late, in newer kernels). Its tail changed over the
 * years (`cma-reserved` added in 4.x, `, NK highmem` on 32-bit HIGHMEM kernels, a
 * trailing `%s%s` until 5.13); the pattern reads only the head, which has not. Works on
 * any log text: `dmesg`, `dmesg -r` (syslog(2), what metal-hammer writes to
 * /var/log/syslog), journal lines, /dev/kmsg records. Pure.
 */

export interface KernelMemoryLine {
  /** x: free memory when the line was printed, KiB. */
  readonly availableKiB: number;
  /** y: the present (physical) pages, KiB: what ghw takes. */
  readonly totalKiB: number;
}

// RE2's \s (Go) is [\t\n\f\r ]; JavaScript's \s is wider, so spell it out.
const MEMORY_LINE = /Memory:[\t\n\f\r ]+(\d+)K\/(\d+)K/;

/** The boot line's figures in one line of log text, or undefined (no match, or y not a positive number ghw could use). */
export function parseKernelMemoryLine(line: string): KernelMemoryLine | undefined {
  const m = MEMORY_LINE.exec(line);
  if (!m) return undefined;
  const availableKiB = Number(m[1]);
  const totalKiB = Number(m[2]);
  // ghw: strconv.Atoi (an overflow is an error: the line is skipped), then size > 0.
  if (!Number.isSafeInteger(totalKiB * 1024) || totalKiB <= 0) return undefined;
  return { availableKiB, totalKiB };
}

/** The first line of a log text that carries the boot line, as ghw scans /var/log/syslog. */
export function findKernelMemoryLine(text: string): KernelMemoryLine | undefined {
  for (const line of text.split("\n")) {
    const found = parseKernelMemoryLine(line);
    if (found) return found;
  }
  return undefined;
}
