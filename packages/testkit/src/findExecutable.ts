import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The first executable `name` in `firstDirs`, on PATH, or in `extraDirs` (sbin dirs are often
 * off PATH).
 */
export function findExecutable(
  name: string,
  extraDirs: string[] = [],
  firstDirs: string[] = [],
): string | undefined {
  const path = (process.env.PATH ?? "").split(delimiter);
  const dirs = [...firstDirs, ...path, ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
