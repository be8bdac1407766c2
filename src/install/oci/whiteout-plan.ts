/**
 * OCI whiteouts (image-spec layer.md "Whiteouts") as a plan over one layer's member
 * names: `DIR/.wh.NAME` hides DIR/NAME of the layers below, `DIR/.wh..wh..opq` hides
 * every child of DIR from below. They apply to lower layers only: what the layer itself
 * wrote stays. The layer is unpacked first (its whiteout markers not extracted), then the
 * plan runs: so a `remove` never takes a path the layer wrote, and a `prune` removes the
 * children of a directory except the paths the layer wrote (and their ancestors).
 * `.wh..wh.`-prefixed names other than the opaque marker (AUFS metadata such as
 * `.wh..wh.plnk`) are neither extracted nor applied. Pure.
 */

export const WHITEOUT_PREFIX = ".wh.";
export const OPAQUE_MARKER = ".wh..wh..opq";
/** The GNU tar pattern that keeps every whiteout marker out of the target (matches the base name anywhere). */
export const WHITEOUT_EXCLUDE = `${WHITEOUT_PREFIX}*`;

export type WhiteoutAction = { readonly op: "remove"; readonly path: string } | { readonly op: "prune"; readonly dir: string };

export interface WhiteoutPlan {
  readonly actions: readonly WhiteoutAction[];
  /** Every path the layer wrote, and each of their ancestors ("" the root): never removed by a prune. */
  readonly keep: ReadonlySet<string>;
}

export class WhiteoutError extends Error {
  override readonly name = "WhiteoutError";
}

const dirOf = (p: string): string => (p.lastIndexOf("/") < 0 ? "" : p.slice(0, p.lastIndexOf("/")));
const baseOf = (p: string): string => p.slice(p.lastIndexOf("/") + 1);
const join = (dir: string, name: string): string => (dir === "" ? name : `${dir}/${name}`);

/** Collects one layer's member paths (normalised, tar-scan.ts) and makes its plan. */
export class WhiteoutPlanner {
  readonly #keep = new Set<string>([""]);
  readonly #actions: WhiteoutAction[] = [];
  readonly #maxMembers: number;
  #members = 0;

  constructor(maxMembers = 4_000_000) {
    this.#maxMembers = maxMembers;
  }

  add(path: string): void {
    if (++this.#members > this.#maxMembers) throw new WhiteoutError(`more than ${this.#maxMembers} members in one layer`);
    if (path.split("/").includes("..")) throw new WhiteoutError(`member ${JSON.stringify(path.slice(0, 200))} climbs with ".."`);
    const parts = path.split("/");
    // Inside a `.wh.`-named directory (AUFS's .wh..wh.plnk/): excluded from the unpack with it, so neither kept nor applied.
    if (parts.slice(0, -1).some((c) => c.startsWith(WHITEOUT_PREFIX))) return;
    const base = baseOf(path);
    if (base.startsWith(WHITEOUT_PREFIX)) {
      const dir = dirOf(path);
      if (base === OPAQUE_MARKER) this.#actions.push({ op: "prune", dir });
      else if (!base.startsWith(`${WHITEOUT_PREFIX}${WHITEOUT_PREFIX}`)) {
        const name = base.slice(WHITEOUT_PREFIX.length);
        if (name === "" || name === "." || name === "..") throw new WhiteoutError(`whiteout ${JSON.stringify(path.slice(0, 200))} names no file`);
        this.#actions.push({ op: "remove", path: join(dir, name) });
      }
      // the parent directory exists in the layer's view either way
      this.#keepWithAncestors(dir);
      return;
    }
    this.#keepWithAncestors(path);
  }

  #keepWithAncestors(path: string): void {
    for (let p = path; p !== "" && !this.#keep.has(p); p = dirOf(p)) this.#keep.add(p);
  }

  /** Whiteouts of paths the layer wrote itself become prunes (the layer's own content stays, what was below goes). */
  plan(): WhiteoutPlan {
    const actions = this.#actions.map((a): WhiteoutAction => (a.op === "remove" && this.#keep.has(a.path) ? { op: "prune", dir: a.path } : a));
    return { actions, keep: this.#keep };
  }
}
