import { rmSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onExit } from "./exitCleanup.ts";

export interface ThrowawayDir {
  path: string;
  remove(): Promise<void>;
}

/** A fresh directory under os.tmpdir(), removed by `remove()` or, failing that, at exit. */
export async function throwawayDir(
  prefix: string,
  owner?: { uid: number; gid: number },
): Promise<ThrowawayDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  const unregister = onExit(() => rmSync(path, { recursive: true, force: true }));
  if (owner) await chown(path, owner.uid, owner.gid);
  return {
    path,
    async remove() {
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
      unregister();
    },
  };
}

/** A directory that outlives the run: `remove()` leaves it in place. */
export async function keptDir(
  path: string,
  owner?: { uid: number; gid: number },
): Promise<ThrowawayDir> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (owner) await chown(path, owner.uid, owner.gid);
  return { path, remove: async () => {} };
}
