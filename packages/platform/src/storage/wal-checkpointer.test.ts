import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../testing.js';
import { type Database, openDatabase } from './database.js';

/** Waits for `check` to hold (the shared pollUntil, every 10 ms), failing after `deadlineMs`. */
const until = (what: string, check: () => boolean | Promise<boolean>, deadlineMs = 10_000) =>
  pollUntil(what, async () => (await check()) || undefined, { deadlineMs, intervalMs: 10 });

async function autocheckpoint(database: Database): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
  return Number(rows[0]?.wal_autocheckpoint);
}

/** About `pages` 4 KiB pages of rows, in one transaction. */
async function writePages(database: Database, pages: number): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < pages; i++) await sql`insert into filler (bytes) values (randomblob(3900))`.execute(trx);
  });
}

describe('WAL checkpoints on a thread (issue 22)', () => {
  let dir: string | null = null;
  let database: Database | null = null;
  afterEach(async () => {
    await database?.close();
    database = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  async function open(): Promise<Database> {
    const folder = mkdtempSync(join(tmpdir(), 'feira-wal-'));
    dir = folder;
    database = await openDatabase(`sqlite:${join(folder, 'feira.db')}`);
    await sql`create table filler (id integer primary key, bytes blob)`.execute(database.db);
    return database;
  }

  it('issue 22: the thread copies the WAL into the database file, so the WAL stays small while the writer never checkpoints under 8,000 pages', async () => {
    const db = await open();
    const checkpointer = db.walCheckpointer;
    expect(checkpointer?.running()).toBe(true);
    expect(await autocheckpoint(db)).toBe(8000);
    // 6,000 pages in 20 commits: past SQLite's usual 1,000-page threshold six times over.
    for (let round = 0; round < 20; round++) {
      const before = checkpointer?.checkpointedFrames() ?? 0;
      await writePages(db, 300);
      await until('the thread checkpointing the new pages', () => (checkpointer?.checkpointedFrames() ?? 0) > before);
    }
    // The WAL was reused from its start after each complete checkpoint: it never held the 6,000 pages.
    expect(statSync(join(dir as string, 'feira.db-wal')).size).toBeLessThan(2_000 * 4096);
    expect(statSync(join(dir as string, 'feira.db')).size).toBeGreaterThan(6_000 * 3900);
  });

  it('issue 22: if the thread stops, the writing connection checkpoints by itself again (SQLite default, 1,000 pages)', async () => {
    const db = await open();
    const checkpointer = db.walCheckpointer;
    await checkpointer?.thread.terminate();
    await until('the writer taking checkpoints back', async () => (await autocheckpoint(db)) === 1000);
    expect(checkpointer?.running()).toBe(false);
    await writePages(db, 1_500);
    await writePages(db, 10);
    // The commit past 1,000 pages checkpointed, and the next write restarted the WAL from its start.
    const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(passive)`.execute(db.db);
    expect(Number(rows[0]?.log)).toBeLessThan(1_000);
  });

  it('an in-memory database has no file to checkpoint and no thread', async () => {
    database = await openDatabase('sqlite::memory:');
    expect(database.walCheckpointer).toBeUndefined();
  });
});
