import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../testing.js';
import { openDatabase } from './database.js';
import { startBackgroundCheckpoints } from './sqlite-checkpointer.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const DATABASE_MODULE = new URL('./database.ts', import.meta.url).href;

describe('SQLite checkpoints on a worker thread', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const freshFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-ckpt-'));
    dirs.push(dir);
    return join(dir, 'x.db');
  };
  const openWal = (file: string) => {
    const sqlite = new SqliteDatabase(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec('create table t (id integer primary key, v text)');
    return sqlite;
  };
  const walPages = (sqlite: SqliteDatabase.Database) => sqlite.pragma('wal_autocheckpoint', { simple: true });

  it('copies the WAL into the database from the worker while the main connection only commits', async () => {
    const file = freshFile();
    const sqlite = openWal(file);
    const checkpoints = await startBackgroundCheckpoints(sqlite, file, { intervalMs: 10 });
    expect(checkpoints.running).toBe(true);
    expect(walPages(sqlite)).toBe(0);
    const insert = sqlite.prepare('insert into t (v) values (?)');
    // Small commits, as requests make them: each adds WAL frames and none checkpoints.
    for (let i = 0; i < 200; i += 1) insert.run('x'.repeat(2000));
    const stats = await pollUntil(
      'a checkpoint that copied frames',
      () => {
        const now = checkpoints.stats();
        return now.framesCheckpointed > 0 ? now : undefined;
      },
      { deadlineMs: 10_000 },
    );
    expect(stats.runs).toBeGreaterThan(0);
    await checkpoints.stop();
    expect(checkpoints.running).toBe(false);
    // Stopped: the main connection checkpoints by itself again.
    expect(walPages(sqlite)).toBe(1000);
    expect(sqlite.prepare('select count(*) as n from t').get()).toEqual({ n: 200 });
    sqlite.close();
  });

  it('leaves checkpoints on the main connection, and says so, when the worker cannot open the database', async () => {
    const file = freshFile();
    const sqlite = openWal(file);
    const failures: Error[] = [];
    const checkpoints = await startBackgroundCheckpoints(sqlite, join(file, '..', 'missing.db'), {
      onFailure: (error) => failures.push(error),
    });
    expect(checkpoints.running).toBe(false);
    expect(walPages(sqlite)).toBe(1000);
    expect(failures).toHaveLength(1);
    await checkpoints.stop();
    expect(failures).toHaveLength(1);
    sqlite.close();
  });

  it('openDatabase with backgroundCheckpoints: rows survive close and reopen, and close stops the worker', async () => {
    const file = freshFile();
    const database = await openDatabase(`sqlite:${file}`, { backgroundCheckpoints: { intervalMs: 10 } });
    expect(database.sqliteCheckpoints?.running).toBe(true);
    await sql`create table t (id integer primary key, v text)`.execute(database.db);
    for (let i = 0; i < 50; i += 1) await sql`insert into t (v) values (${`row ${i}`})`.execute(database.db);
    await database.close();
    expect(database.sqliteCheckpoints?.running).toBe(false);

    const reopened = await openDatabase(`sqlite:${file}`);
    expect(reopened.sqliteCheckpoints).toBeUndefined();
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(reopened.db);
    expect(rows).toEqual([{ n: 50 }]);
    await reopened.close();
  });

  it('a script that opens the database with the worker and closes it runs to the end (no exit under an unreferenced worker)', async () => {
    // The worker is unreferenced only while it runs, not while it starts or stops: otherwise such a
    // script ends with exit code 13 (unsettled top-level await), as the benchmark's platform process once did.
    const file = freshFile();
    const script = [
      `const { openDatabase } = await import(${JSON.stringify(DATABASE_MODULE)});`,
      `const database = await openDatabase(${JSON.stringify(`sqlite:${file}`)}, { backgroundCheckpoints: true });`,
      "process.stdout.write('running=' + database.sqliteCheckpoints.running);",
      'await database.close();',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      timeout: 60_000,
    });
    expect(stdout).toBe('running=true');
  });
});
