import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the data folder held before a start, so a start that fails (port in
 * use, database unreachable) can put it back as it was: files
 * it created (admin token, secret key, a new SQLite file, the local CA) are
 * removed, and the folder itself if it did not exist.
 */
export function snapshotDataDir(dataDir: string): { restore(): void } {
  const existed = existsSync(dataDir);
  const before = new Set(existed ? readdirSync(dataDir) : []);
  return {
    restore() {
      if (!existsSync(dataDir)) return;
      if (!existed) {
        rmSync(dataDir, { recursive: true, force: true });
        return;
      }
      for (const name of readdirSync(dataDir)) {
        if (!before.has(name)) rmSync(join(dataDir, name), { recursive: true, force: true });
      }
    },
  };
}
