/**
 * What the layout planner accepts in the fields it turns into commands, fstab lines and
 * mount points. Pure. Upstream validates these fields by length only (`is_option`: 1-128
 * characters, `path`: 1-4096; metal-stack/api@e6201fcb proto/metalstack/api/v2/filesystem.proto
 * and predefined_rules.proto), so this is the one place their content is checked.
 * Each check answers undefined (fine) or the rule broken; the planner names field and value.
 *
 * - A mount path is canonical: absolute, no empty, "." or ".." component, no trailing "/"
 *   (so `/var/` and `/var` cannot both be mounted, and `/../etc` cannot leave the target).
 * - Paths, labels, options and tags hold no control character and no blank (a newline
 *   would add fstab lines; a blank splits an fstab field).
 * - Create options pass per tool through an allow-list of options that change how the
 *   filesystem or array is built; positional arguments and options that name files or
 *   devices (mke2fs `-d`, `-z`, `-J device=`; mkfs.fat `-C`, `-B`; mkswap `--file`;
 *   mdadm `--spare-devices`, `--write-journal`, `--bitmap=<file>`) are refused, and so are
 *   options the planner sets itself (label, force, level, device counts).
 * - Mount options pass through an allow-list; uppercase `X-*` (mount(8) acts on
 *   `X-mount.mkdir`, `X-mount.subdir`, ...), `loop`/`offset`/`sizelimit` (a file as the
 *   source) and `comment=` are refused.
 */

/** Control characters (C0, DEL, C1) and every blank (space, tab, NBSP, ...). */
const UNSAFE = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/u;

export function unsafeText(v: string): string | undefined {
  const m = UNSAFE.exec(v);
  return m ? `holds ${JSON.stringify(m[0])} (control characters and blanks are not allowed)` : undefined;
}

/** The canonical spelling of an absolute path ("//a/./b/" -> "/a/b"); ".." kept (the caller refuses it). */
export function canonicalPath(p: string): string {
  const parts = p.split("/").filter((s) => s !== "" && s !== ".");
  return `/${parts.join("/")}`;
}

/** A mount path: absolute, canonical, no "..", no control characters or blanks. */
export function mountPathRule(p: string): string | undefined {
  if (!p.startsWith("/")) return "expected an absolute path";
  const bad = unsafeText(p) ?? (p.includes("\\") ? "holds a backslash (fstab would read it as an escape)" : undefined);
  if (bad) return bad;
  if (p.split("/").includes("..")) return `".." is not allowed (a mount point stays inside the target)`;
  const c = canonicalPath(p);
  if (c !== p) return `not canonical: expected ${JSON.stringify(c)}`;
  return undefined;
}

/** A device path the layout derives (partition, array, logical volume): /dev/<name>[/<name>] without "." or "..". */
export function devicePathRule(p: string): string | undefined {
  const bad = unsafeText(p);
  if (bad) return bad;
  if (!/^\/dev(\/[A-Za-z0-9+_.:-]+)+$/.test(p)) return "expected /dev/<name> with letters, digits and + _ . : - only";
  if (p.split("/").some((c) => c === "." || c === "..")) return `"." and ".." are not device names`;
  return undefined;
}

/** Names LVM and the kernel reserve below /dev, which a volume group of that name would shadow. */
const DEV_DIRS = new Set([
  "block",
  "bsg",
  "bus",
  "char",
  "cpu",
  "disk",
  "dma_heap",
  "dri",
  "fd",
  "hugepages",
  "input",
  "mapper",
  "md",
  "mqueue",
  "net",
  "pts",
  "shm",
  "snd",
  "usb",
  "vfio",
]);
/** lvm(8) "VALID NAMES": reserved LV names and the suffixes LVM uses for its hidden volumes. */
const LV_RESERVED = new Set(["snapshot", "pvmove"]);
const LV_SUFFIXES = ["_cdata", "_cmeta", "_corig", "_iorig", "_mimage", "_mlog", "_pmspare", "_rimage", "_rmeta", "_tdata", "_tmeta", "_vdata", "_vorigin", "_wcorig"];

/** A volume group name; `diskNames`: kernel names of the machine's disks (/dev/<vg> must not be one). */
export function vgNameRule(name: string, diskNames: ReadonlySet<string>): string | undefined {
  if (!/^[A-Za-z0-9+_.][A-Za-z0-9+_.-]*$/.test(name)) return "expected letters, digits and + _ . - (not first)";
  if (name === "." || name === "..") return `"." and ".." are not names`;
  if (DEV_DIRS.has(name)) return `/dev/${name} is a directory of the system`;
  if (diskNames.has(name)) return `/dev/${name} is a disk of this machine`;
  if (name.length > 127) return "longer than 127 characters";
  return undefined;
}

export function lvNameRule(name: string): string | undefined {
  if (!/^[A-Za-z0-9+_.][A-Za-z0-9+_.-]*$/.test(name)) return "expected letters, digits and + _ . - (not first)";
  if (name === "." || name === "..") return `"." and ".." are not names`;
  if (LV_RESERVED.has(name) || name.startsWith("snapshot") || name.startsWith("pvmove")) return "reserved by LVM";
  if (LV_SUFFIXES.some((s) => name.includes(s))) return "holds a suffix LVM reserves for its hidden volumes";
  if (name.length > 127) return "longer than 127 characters";
  return undefined;
}

/** An LVM tag (lvm(8): A-Z a-z 0-9 _ + . - / = ! : # & , not starting with "-"). */
export function lvmTagRule(tag: string): string | undefined {
  if (!/^[A-Za-z0-9_+.\/=!:#&][A-Za-z0-9_+.\-\/=!:#&]*$/.test(tag)) return "expected letters, digits and _ + . - / = ! : # & (not - first)";
  if (tag.length > 1024) return "longer than 1024 characters";
  return undefined;
}

/** A value an option may carry: no path separator, no blank, not an option itself. */
const VALUE = /^[A-Za-z0-9_.,:+^=%@-]+$/;
const valueRule = (v: string): string | undefined =>
  v.startsWith("-") && !/^-\d+$/.test(v) ? "a value cannot start with -" : VALUE.test(v) ? undefined : "expected letters, digits and _ . , : + ^ = % @ - (no path)";

type ValueCheck = (v: string) => string | undefined;
interface ToolOptions {
  /** Short options without a value. */
  readonly flags: string;
  /** Short options with a value, and the check of the value. */
  readonly valued: Readonly<Record<string, ValueCheck>>;
  /** Long options (without "--") and whether they take a value. */
  readonly long: Readonly<Record<string, ValueCheck | "flag">>;
  /** Refused with a reason of their own. */
  readonly refused: Readonly<Record<string, string>>;
}

const oneOf =
  (...vs: string[]): ValueCheck =>
  (v) =>
    vs.includes(v) ? undefined : `expected one of ${vs.join(", ")}`;
const digits: ValueCheck = (v) => (/^\d+$/.test(v) ? undefined : "expected a number");
const size: ValueCheck = (v) => (/^\d+[KkMmGgTtPp%]?$/.test(v) ? undefined : "expected a size (digits, optional K M G T P or %)");
const uuid: ValueCheck = (v) =>
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|random|time|clear)$/.test(v) ? undefined : "expected a UUID, random, time or clear";
const subOptions =
  (allowed: readonly string[]): ValueCheck =>
  (v) => {
    const bad = valueRule(v);
    if (bad) return bad;
    for (const part of v.split(",")) {
      const key = part.split("=")[0] as string;
      if (!allowed.includes(key)) return `${JSON.stringify(key)} is not allowed (allowed: ${allowed.join(", ")})`;
    }
    return undefined;
  };

/** mke2fs(8), for mkfs.ext3 and mkfs.ext4. */
const MKE2FS: ToolOptions = {
  flags: "jqvcDK",
  valued: {
    b: size,
    C: size,
    E: subOptions([
      "stride",
      "stripe_width",
      "stripe-width",
      "resize",
      "lazy_itable_init",
      "lazy_journal_init",
      "assume_storage_prezeroed",
      "num_backup_sb",
      "packed_meta_blocks",
      "root_owner",
      "discard",
      "nodiscard",
      "quotatype",
      "encoding",
      "encoding_flags",
      "orphan_file_size",
      "test_fs",
    ]),
    e: oneOf("continue", "remount-ro", "panic"),
    G: digits,
    g: digits,
    I: digits,
    i: digits,
    J: subOptions(["size", "fast_commit_size"]),
    m: (v) => (/^\d+(\.\d+)?$/.test(v) ? undefined : "expected a percentage"),
    N: digits,
    O: valueRule,
    o: valueRule,
    r: digits,
    T: valueRule,
    U: uuid,
  },
  long: {},
  refused: {
    d: "copies a directory of the running system into the filesystem",
    z: "writes an undo file outside the target",
    l: "reads a bad-block list from a file",
    L: "the label comes from the label field",
    F: "the planner forces already",
    t: "the type comes from the format field",
    S: "writes only superblocks over an existing filesystem",
    n: "a dry run creates nothing",
    M: "names a directory",
  },
};

/** mkswap(8). */
const MKSWAP: ToolOptions = {
  flags: "c",
  valued: { p: digits, U: uuid, e: oneOf("native", "little", "big") },
  long: { check: "flag", pagesize: digits, uuid, endianness: oneOf("native", "little", "big"), verbose: "flag" },
  refused: {
    F: "creates a swap file",
    file: "creates a swap file",
    o: "an offset into a file",
    offset: "an offset into a file",
    s: "the size is the device's",
    size: "the size is the device's",
    L: "the label comes from the label field",
    label: "the label comes from the label field",
    f: "the planner forces already",
  },
};

/** mkfs.fat(8). */
const MKFS_FAT: ToolOptions = {
  flags: "acIv",
  valued: {
    F: oneOf("12", "16", "32"),
    S: digits,
    s: digits,
    R: digits,
    f: digits,
    r: digits,
    i: (v) => (/^[0-9a-fA-F]{1,8}$/.test(v) ? undefined : "expected a hex volume id"),
    h: digits,
    M: (v) => (/^(0x)?[0-9a-fA-F]{1,2}$/.test(v) ? undefined : "expected a media byte"),
    D: (v) => (/^(0x)?[0-9a-fA-F]{1,2}$/.test(v) ? undefined : "expected a drive number"),
    b: digits,
    g: (v) => (/^\d+\/\d+$/.test(v) ? undefined : "expected heads/sectors"),
  },
  long: { invariant: "flag", codepage: digits, "fat-type": oneOf("12", "16", "32"), mbr: oneOf("y", "yes", "n", "no", "a", "auto") },
  refused: {
    C: "creates a file",
    B: "reads a boot sector from a file",
    l: "reads a bad-block list from a file",
    n: "the label comes from the label field",
    offset: "an offset into a file",
  },
};

/** mdadm(8) --create. */
const MDADM: ToolOptions = {
  flags: "vq",
  valued: { e: valueRule, c: size, N: valueRule, u: valueRule, p: valueRule, k: valueRule, z: size, b: oneOf("internal", "none", "clustered") },
  long: {
    metadata: valueRule,
    chunk: size,
    name: valueRule,
    uuid: valueRule,
    layout: valueRule,
    parity: valueRule,
    "consistency-policy": oneOf("resync", "bitmap", "journal", "ppl", "none"),
    size,
    "data-offset": size,
    "array-size": size,
    bitmap: oneOf("internal", "none", "clustered"),
    "bitmap-chunk": size,
    verbose: "flag",
    quiet: "flag",
    "assume-clean": "flag",
  },
  refused: {
    "spare-devices": "the spares field sets the spares (and a device here would bypass the device checks)",
    x: "the spares field sets the spares",
    n: "the devices field sets the devices",
    "raid-devices": "the devices field sets the devices",
    l: "the level field sets the level",
    level: "the level field sets the level",
    "write-journal": "names a device",
    "backup-file": "names a file",
    config: "names a file",
    homehost: "the planner sets it",
    a: "names devices",
    auto: "names devices",
  },
};

export type OptionTool = "mke2fs" | "mkswap" | "mkfs.fat" | "mdadm";
const TOOLS: Readonly<Record<OptionTool, ToolOptions>> = { mke2fs: MKE2FS, mkswap: MKSWAP, "mkfs.fat": MKFS_FAT, mdadm: MDADM };

/** A problem with create options for `tool`: [index, rule] of the first bad one, or undefined. */
export function createOptionsRule(tool: OptionTool, opts: readonly string[]): { index: number; rule: string } | undefined {
  const t = TOOLS[tool];
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i] as string;
    const bad = unsafeText(o);
    if (bad || o === "") return { index: i, rule: bad ?? "empty" };
    const next = (check: ValueCheck, name: string): string | undefined => {
      const v = opts[i + 1];
      if (v === undefined) return `${name} needs a value`;
      i++;
      const r = unsafeText(v) ?? check(v);
      return r ? `value ${JSON.stringify(v)} of ${name}: ${r}` : undefined;
    };
    let rule: string | undefined;
    if (o.startsWith("--")) {
      const [name, ...rest] = o.slice(2).split("=");
      const value = rest.length > 0 ? rest.join("=") : undefined;
      const why = t.refused[name as string];
      const allowed = t.long[name as string];
      if (why) rule = `--${name} is not allowed: ${why}`;
      else if (allowed === undefined) rule = `--${name} is not an allowed ${tool} option`;
      else if (allowed === "flag") rule = value !== undefined ? `--${name} takes no value` : undefined;
      else if (value !== undefined) rule = allowed(value) && `value ${JSON.stringify(value)} of --${name}: ${allowed(value)}`;
      else rule = next(allowed, `--${name}`);
    } else if (o.startsWith("-") && o.length > 1) {
      // A cluster of short flags, the last one may take a value (attached or in the next item).
      for (let j = 1; j < o.length && rule === undefined; j++) {
        const c = o[j] as string;
        const why = t.refused[c];
        const check = t.valued[c];
        if (why) rule = `-${c} is not allowed: ${why}`;
        else if (check) {
          const attached = o.slice(j + 1);
          if (attached !== "") rule = check(attached) && `value ${JSON.stringify(attached)} of -${c}: ${check(attached)}`;
          else rule = next(check, `-${c}`);
          break;
        } else if (!t.flags.includes(c)) rule = `-${c} is not an allowed ${tool} option`;
      }
    } else rule = `${JSON.stringify(o)} is a positional argument (a device or file): only options are allowed`;
    if (rule) return { index: i, rule };
  }
  return undefined;
}

/** mount(8) and fstab(5) options the layout may ask for, without a value. */
/** mount(8)'s propagation flags: accepted in a layout's options, never passed on to a filesystem. */
export const MOUNT_PROPAGATION = ["unbindable", "runbindable", "private", "rprivate", "slave", "rslave", "shared", "rshared"] as const;

const MOUNT_FLAGS = new Set([
  "defaults",
  "ro",
  "rw",
  "sync",
  "async",
  "dirsync",
  "atime",
  "noatime",
  "relatime",
  "norelatime",
  "strictatime",
  "nostrictatime",
  "lazytime",
  "nolazytime",
  "diratime",
  "nodiratime",
  "exec",
  "noexec",
  "suid",
  "nosuid",
  "dev",
  "nodev",
  "auto",
  "noauto",
  "nofail",
  "iversion",
  "noiversion",
  "mand",
  "nomand",
  "silent",
  "loud",
  "_netdev",
  ...MOUNT_PROPAGATION,
  // ext3/ext4 (ext4(5))
  "discard",
  "nodiscard",
  "acl",
  "noacl",
  "user_xattr",
  "nouser_xattr",
  "barrier",
  "nobarrier",
  "journal_checksum",
  "nojournal_checksum",
  "journal_async_commit",
  "delalloc",
  "nodelalloc",
  "auto_da_alloc",
  "noauto_da_alloc",
  "block_validity",
  "noblock_validity",
  "dioread_lock",
  "dioread_nolock",
  "quota",
  "noquota",
  "usrquota",
  "grpquota",
  "prjquota",
  "grpid",
  "bsdgroups",
  "nogrpid",
  "sysvgroups",
  "init_itable",
  "noinit_itable",
  "nombcache",
  "dax",
  // vfat (mount(8) FAT options), tmpfs
  "flush",
  "utf8",
  "showexec",
  "quiet",
  "sys_immutable",
  "tz=UTC",
  "noswap",
  // systemd's fstab extensions (systemd.mount(5)): not passed to mount(8)
  "x-systemd.automount",
  "x-systemd.growfs",
  "x-systemd.makefs",
  "x-systemd.rw-only",
  "x-initrd.mount",
]);
/** Options with a value: name -> check. */
const MOUNT_VALUED: Readonly<Record<string, ValueCheck>> = {
  errors: oneOf("continue", "remount-ro", "panic"),
  data: oneOf("journal", "ordered", "writeback"),
  commit: digits,
  barrier: oneOf("0", "1"),
  stripe: digits,
  inode_readahead_blks: digits,
  max_batch_time: digits,
  min_batch_time: digits,
  journal_ioprio: digits,
  resuid: digits,
  resgid: digits,
  size: size,
  nr_blocks: size,
  nr_inodes: size,
  mode: (v) => (/^[0-7]{3,4}$/.test(v) ? undefined : "expected an octal mode"),
  uid: digits,
  gid: digits,
  umask: (v) => (/^[0-7]{1,4}$/.test(v) ? undefined : "expected an octal mask"),
  fmask: (v) => (/^[0-7]{1,4}$/.test(v) ? undefined : "expected an octal mask"),
  dmask: (v) => (/^[0-7]{1,4}$/.test(v) ? undefined : "expected an octal mask"),
  codepage: digits,
  iocharset: (v) => (/^[A-Za-z0-9_-]+$/.test(v) ? undefined : "expected a charset name"),
  shortname: oneOf("lower", "win95", "winnt", "mixed"),
  huge: oneOf("never", "always", "within_size", "advise", "deny", "force"),
  mpol: valueRule,
  "x-systemd.device-timeout": valueRule,
  "x-systemd.mount-timeout": valueRule,
  "x-systemd.idle-timeout": valueRule,
};
const MOUNT_REFUSED: Readonly<Record<string, string>> = {
  loop: "mounts a file through a loop device",
  offset: "an offset into a loop file",
  sizelimit: "a limit of a loop file",
  comment: "free text in fstab",
  owner: "lets users mount it",
  user: "lets users mount it",
  users: "lets users mount it",
  group: "lets users mount it",
  context: "an SELinux context is the image's business",
  fscontext: "an SELinux context is the image's business",
  defcontext: "an SELinux context is the image's business",
  rootcontext: "an SELinux context is the image's business",
  journal_path: "names a device",
  journal_dev: "names a device",
  usrjquota: "names a file",
  grpjquota: "names a file",
};

/** The rule a mount option breaks, or undefined. */
export function mountOptionRule(o: string): string | undefined {
  const bad = unsafeText(o);
  if (bad) return bad;
  if (o === "") return "empty";
  if (o.includes(",")) return "one option per item (a comma would join options)";
  if (/^X-/.test(o)) return "X-* options are acted on by mount(8) (X-mount.mkdir, X-mount.subdir, ...): not allowed";
  if (MOUNT_FLAGS.has(o)) return undefined;
  const eq = o.indexOf("=");
  const name = eq < 0 ? o : o.slice(0, eq);
  const why = MOUNT_REFUSED[name];
  if (why) return `${name} is not allowed: ${why}`;
  const check = MOUNT_VALUED[name];
  if (!check) return `${JSON.stringify(name)} is not an allowed mount option`;
  if (eq < 0) return `${name} needs a value`;
  const v = o.slice(eq + 1);
  const r = check(v);
  return r ? `value ${JSON.stringify(v)}: ${r}` : undefined;
}
