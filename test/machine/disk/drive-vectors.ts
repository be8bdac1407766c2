/** Recorded `hdparm -I` / `sg_opcodes` outputs of real drives (test/fixtures/disk/README.md says where each comes from). */
import { readFileSync } from "node:fs";

export const fixture = (p: string): string => readFileSync(new URL(`../../fixtures/disk/${p}`, import.meta.url), "utf8");
export const WD5000 = fixture("ata/wd5000bmvv-supported.txt");
export const MICRON = fixture("ata/micron-5300-frozen-sanitize.txt");
export const WD80 = fixture("ata/wd80emaz-frozen-overwrite-only.txt");
/** The Security section after --security-set-pass (ata.wiki.kernel.org, copied with spaces). */
export const WIKI_ENABLED = fixture("ata/kernel-wiki-enabled-section.txt");
/** The WD5000BMVV with a password set and after a power cycle: derived, the two lines as hdparm prints a set bit (no real locked output was found). */
export const WD5000_LOCKED = WD5000.replace("\tnot\tenabled\n\tnot\tlocked\n", "\t\tenabled\n\t\tlocked\n");
/** The WD5000BMVV with a password set, not locked (as right after --security-set-pass). */
export const WD5000_ENABLED = WD5000.replace("\tnot\tenabled\n", "\t\tenabled\n");
export const SEAGATE_OPCODES = fixture("scsi/st10000nm0226-opcodes-compact.txt");
export const SEAGATE_SANITIZING = fixture("scsi/st10000nm0226-requests-sanitizing.txt");
/** QEMU guest, the kernel's scsi_debug (Linux 6.1): its REPORT SUPPORTED OPERATION CODES, and what hdparm -I makes of its all-zero ATA PASS-THROUGH answer. */
export const SCSI_DEBUG_OPCODES = fixture("scsi/scsi_debug-opcodes-compact.txt");
export const SCSI_DEBUG_HDPARM = fixture("scsi/scsi_debug-hdparm-I.txt");
