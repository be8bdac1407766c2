import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { parseLayoutFile } from "../../../src/machine/disk/layout-file.ts";
import { Format, GPTType } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";

const refusal = (text: string): AgentError => {
  try {
    parseLayoutFile("/l.json", text);
  } catch (e) {
    expect(e).toBeInstanceOf(AgentError);
    expect([(e as AgentError).code, (e as AgentError).exitCode]).toEqual(["layout_refused", 61]);
    return e as AgentError;
  }
  throw new Error(`accepted: ${text}`);
};

describe("layout file (FilesystemLayout protojson, decoded with the generated schema)", () => {
  test("enum numbers and uint64 numbers are accepted as protojson allows", () => {
    const l = parseLayoutFile(
      "/l.json",
      JSON.stringify({ disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: 100, gptType: 1 }] }], filesystems: [{ device: "/dev/sda1", format: 3 }] }),
    );
    expect([l.disks[0]!.partitions[0]!.number, l.disks[0]!.partitions[0]!.size, l.disks[0]!.partitions[0]!.gptType]).toEqual([1, 100n, GPTType.GPT_TYPE_BOOT]);
    expect(l.filesystems[0]!.format).toBe(Format.EXT4);
  });

  test("proto field names are accepted too; absent optional fields stay absent", () => {
    const l = parseLayoutFile(
      "/l.json",
      '{"logical_volumes":[{"name":"a","volume_group":"vg","size":"10","lvm_type":"LVM_TYPE_STRIPED"}],"filesystems":[{"device":"/dev/sda1","format":"FORMAT_EXT4"}]}',
    );
    expect([l.logicalVolumes[0]!.volumeGroup, l.logicalVolumes[0]!.size]).toEqual(["vg", 10n]);
    expect([l.filesystems[0]!.path, l.filesystems[0]!.label]).toEqual([undefined, undefined]);
  });

  test("an unknown enum name (the display name) is refused naming the file, the field and the names expected", () => {
    const e = refusal('{"filesystems":[{"device":"/dev/sda1","format":"ext4"}]}');
    expect(e.message).toStartWith("layout file /l.json field filesystems[0].format: ");
    expect(e.message).toContain('"ext4"; expected one of FORMAT_UNSPECIFIED, FORMAT_VFAT, FORMAT_EXT3, FORMAT_EXT4');
    expect(e.details.field).toBe("filesystems[0].format");
  });

  test("an unknown field is refused, not skipped, naming it and the fields the message has", () => {
    const e = refusal('{"disks":[{"device":"/dev/sda","wipeOnReinstall":true}]}');
    expect(e.message).toContain("field disks[0].wipeOnReinstall: unknown field (metalstack.api.v2.Disk has device, partitions)");
  });

  test("a negative size and a negative partition number are out of range of their uint types", () => {
    expect(refusal('{"logicalVolumes":[{"size":"-1"}]}').message).toContain("field logicalVolumes[0].size: cannot decode field metalstack.api.v2.LogicalVolume.size from JSON");
    expect(refusal('{"disks":[{"partitions":[{"number":-1}]}]}').message).toContain("field disks[0].partitions[0].number");
  });

  test("an allocation carrying the layout: only filesystemLayout is decoded, its path named from the file's top", () => {
    const l = parseLayoutFile(
      "/a.json",
      JSON.stringify({ hostname: "m1", notInOurProto: 1, filesystemLayout: { id: "c1", filesystems: [{ device: "/dev/sda1", format: "FORMAT_EXT4", path: "/" }] } }),
    );
    expect([l.id, l.filesystems[0]!.path]).toEqual(["c1", "/"]);
    expect(parseLayoutFile("/a.json", '{"filesystem_layout":{"id":"snake"}}').id).toBe("snake");
    expect(refusal('{"filesystemLayout":{"raid":[{"level":"RAID1"}]}}').message).toContain("field filesystemLayout.raid[0].level");
  });

  test("not JSON, or JSON that is not an object, is refused naming the file", () => {
    expect(refusal("{nope").message).toMatch(/^layout file \/l\.json: not JSON \(.*expected FilesystemLayout protojson\)$/);
    expect(refusal("[]").message).toBe("layout file /l.json: expected a JSON object, got an array (expected FilesystemLayout protojson, metalstack.api.v2)");
  });
});
