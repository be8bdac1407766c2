/**
 * The ATA and SCSI parsers against recorded outputs of real drives
 * (test/fixtures/disk/ata/, scsi/; the README there says where each comes from).
 */
import { describe, expect, test } from "bun:test";
import { AtaIdError, parseAtaSanitizeStatus, parseAtaSecurity, parseHdparmIdentify } from "../../../src/machine/disk/ata-id.ts";
import { parseRequestSense, parseScsiOpcodes, ScsiIdError } from "../../../src/machine/disk/scsi-id.ts";
import { SCSI_DEBUG_HDPARM, SCSI_DEBUG_OPCODES, MICRON, SEAGATE_OPCODES, SEAGATE_SANITIZING, WD5000, WD5000_LOCKED, WD80, WIKI_ENABLED } from "./drive-vectors.ts";

describe("hdparm -I", () => {
  test("a 500 GB WD laptop disk: security supported, not frozen, enhanced erase, 138 min by its own estimate", () => {
    expect(parseHdparmIdentify(WD5000)).toEqual({
      model: "WDC WD5000BMVV-11GNWS0",
      security: {
        supported: true,
        enabled: false,
        locked: false,
        frozen: false,
        countExpired: false,
        enhancedErase: true,
        eraseEstimate: { minutes: 138, atLeast: false },
        enhancedEraseEstimate: { minutes: 138, atLeast: false },
      },
      sanitize: { crypto: false, block: false, overwrite: false },
    });
  });

  test("a Micron 5300 SSD: frozen by the firmware, SANITIZE crypto, block and overwrite, 2 min erase", () => {
    const c = parseHdparmIdentify(MICRON);
    expect(c?.model).toBe("Micron_5300_MTFDDAK1T9TDS");
    expect(c?.security).toMatchObject({ supported: true, frozen: true, locked: false, enhancedErase: true, enhancedEraseEstimate: { minutes: 2, atLeast: false } });
    expect(c?.sanitize).toEqual({ crypto: true, block: true, overwrite: true });
  });

  test("an 8 TB HGST He10 (WD80EMAZ): frozen, no enhanced erase, 832 min, SANITIZE overwrite only", () => {
    const c = parseHdparmIdentify(WD80);
    expect(c?.security).toMatchObject({ frozen: true, enhancedErase: false, eraseEstimate: { minutes: 832, atLeast: false }, enhancedEraseEstimate: undefined });
    expect(c?.sanitize).toEqual({ crypto: false, block: false, overwrite: true });
  });

  test("the Security section copied with spaces (ata.wiki.kernel.org, after --security-set-pass): enabled, not locked", () => {
    expect(parseAtaSecurity(WIKI_ENABLED)).toMatchObject({ supported: true, enabled: true, locked: false, frozen: false, eraseEstimate: { minutes: 2 } });
  });

  test("a locked drive reads as locked and enabled", () => {
    expect(parseHdparmIdentify(WD5000_LOCKED)?.security).toMatchObject({ enabled: true, locked: true, frozen: false });
  });

  test('"more than 508min" is kept as a lower bound', () => {
    const s = parseAtaSecurity("Security: \n\t\tsupported\n\tmore than 508min for SECURITY ERASE UNIT. more than 508min for ENHANCED SECURITY ERASE UNIT.\n");
    expect(s?.eraseEstimate).toEqual({ minutes: 508, atLeast: true });
    expect(s?.enhancedEraseEstimate).toEqual({ minutes: 508, atLeast: true });
  });

  test("no Security section: no security feature set; not an ATA device: undefined; a section without its supported line: refused", () => {
    expect(parseHdparmIdentify(WD5000.replace(/Security: \n(\t.*\n)+/, ""))?.security).toBeUndefined();
    expect(parseHdparmIdentify("\n/dev/sdc:\nSG_IO: bad/missing sense data, sb[]:  70 00 05 00\n")).toBeUndefined();
    expect(() => parseAtaSecurity("Security: \n\tnot\tenabled\n")).toThrow(AtaIdError);
    expect(() => parseAtaSecurity("Security: \n\tnot\tenabled\n")).toThrow(/no "supported" line/);
  });

  test("--sanitize-status: the SDn state and the progress while SD2", () => {
    expect(parseAtaSanitizeStatus("\n/dev/sdb:\nSanitize status:\n    State:    SD2 Sanitize operation In Process\n    Progress: 0x8000 (50%)\n")).toEqual({
      state: "running",
      percent: 50,
    });
    expect(parseAtaSanitizeStatus("Sanitize status:\n    State:    SD4 Sanitize Operation succeeded\n")).toEqual({ state: "done", percent: undefined });
    expect(parseAtaSanitizeStatus("Sanitize status:\n    State:    SD3 Sanitize Operation Failed\n").state).toBe("failed");
    expect(() => parseAtaSanitizeStatus("SANITIZE failed: Input/output error")).toThrow(/no "State: SDn" line/);
  });
});

describe("sg_opcodes --compact, sg_requests", () => {
  test("a Seagate ST10000NM0226 SAS disk: SANITIZE overwrite and crypto erase, no block erase", () => {
    expect(parseScsiOpcodes(SEAGATE_OPCODES)).toEqual({
      model: "SEAGATE ST10000NM0226 KT01",
      sanitizeCrypto: true,
      sanitizeBlock: false,
      sanitizeOverwrite: true,
      formatUnit: false,
    });
  });

  test("the kernel's scsi_debug (recorded in the QEMU guest): a long command list without SANITIZE or FORMAT UNIT; hdparm's all-zero IDENTIFY of it is no ATA device", () => {
    expect(parseScsiOpcodes(SCSI_DEBUG_OPCODES)).toEqual({
      model: "Linux scsi_debug 0191",
      sanitizeCrypto: false,
      sanitizeBlock: false,
      sanitizeOverwrite: false,
      formatUnit: false,
    });
    expect(SCSI_DEBUG_HDPARM).toContain("ATA device, with non-removable media");
    expect(parseHdparmIdentify(SCSI_DEBUG_HDPARM)).toBeUndefined();
  });

  test("FORMAT UNIT (04) and block erase (48,2) are recognised; output without a command list is refused", () => {
    const c = parseScsiOpcodes("  X  Y  1\n\nOpcode,sa  Name\n---------------------------------------\n 04        Format unit\n 48,2      Sanitize, block erase\n");
    expect([c.formatUnit, c.sanitizeBlock, c.sanitizeCrypto]).toEqual([true, true, false]);
    expect(() => parseScsiOpcodes("Report supported operation codes command not supported\n")).toThrow(ScsiIdError);
  });

  test("REQUEST SENSE while the Seagate sanitizes: running at 3.78 %; no sense: done; sanitize failed: failed", () => {
    expect(parseRequestSense(SEAGATE_SANITIZING)).toEqual({
      state: "running",
      percent: 3.78,
      sense: "Logical unit not ready, sanitize in progress",
    });
    expect(parseRequestSense("Decode parameter data as sense data:\nFixed format, current; Sense key: No Sense\nAdditional sense: No additional sense information\n").state).toBe(
      "done",
    );
    expect(parseRequestSense("Fixed format, current; Sense key: Medium Error\nAdditional sense: Sanitize command failed\n").state).toBe("failed");
  });
});
