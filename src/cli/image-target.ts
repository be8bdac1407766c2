/** The directory an image command unpacks into (`image install --target`, `image pull --to`). */
import { readdir, stat } from "node:fs/promises";
import { AgentError } from "../platform/errors.ts";

/** The target: an existing, empty directory, else a usage error (nothing is created or wiped). */
export async function checkTarget(dir: string | undefined, cmd = "image install", flag = "--target"): Promise<string> {
  if (!dir) throw new AgentError("usage", `${cmd}: ${flag} DIR is required (an existing directory the image is unpacked into)`, {});
  const st = await stat(dir).catch(() => undefined);
  if (!st) throw new AgentError("usage", `${cmd}: ${flag} ${dir}: no such directory (it is not created: give an existing, empty directory)`, { target: dir });
  if (!st.isDirectory()) throw new AgentError("usage", `${cmd}: ${flag} ${dir}: not a directory`, { target: dir });
  // The install empties its target before a fetch from byte 0 again (clean.ts): only an empty one (a fresh filesystem's lost+found aside) is taken.
  const inside = (await readdir(dir)).filter((n) => n !== "lost+found");
  if (inside.length > 0)
    throw new AgentError(
      "usage",
      `${cmd}: ${flag} ${dir}: not empty (${inside.length} entries, e.g. ${inside.slice(0, 3).join(", ")}): a restart from byte 0 empties the target, so it must hold nothing`,
      { target: dir },
    );
  return dir;
}
