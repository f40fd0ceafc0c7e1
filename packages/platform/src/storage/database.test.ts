import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('opening a SQLite file', () => {
  it('several processes starting at once: connections opening the same new file at the same instant all open it in WAL mode, as two `feira start` on an empty data folder do', async () => {
    // SQLite refuses one of two connections switching a new file to WAL at once with SQLITE_BUSY, without
    // waiting out the busy timeout; before the switch was retried, about one round in six failed here.
    const script = fileURLToPath(new URL('../../test/storage/open-sqlite-race.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'feira-open-race-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
        cwd: root,
        timeout: 50_000,
        env: {
          ...process.env,
          TSX_TSCONFIG_PATH: 'tsconfig.typecheck.json',
          FEIRA_RACE_DIR: dir,
          FEIRA_RACE_ROUNDS: '200',
          FEIRA_RACE_THREADS: '3',
        },
      });
      const report = JSON.parse(stdout.trim()) as { opens: number; journalModes: string[]; failures: string[] };
      expect(report).toEqual({ opens: 600, journalModes: ['wal'], failures: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
