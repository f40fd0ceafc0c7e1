import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../testing.js';
import { type Database, type OpenDatabaseOptions, openDatabase, openSqliteConnection } from './database.js';
import { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from './wal-checkpointer.js';

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

describe('WAL checkpoints on a thread', () => {
  let dir: string | null = null;
  let database: Database | null = null;
  afterEach(async () => {
    await database?.close();
    database = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  async function open(walCheckpoint?: OpenDatabaseOptions['walCheckpoint']): Promise<Database> {
    const folder = mkdtempSync(join(tmpdir(), 'feira-wal-'));
    dir = folder;
    database = await openDatabase(`sqlite:${join(folder, 'feira.db')}`, walCheckpoint ? { walCheckpoint } : {});
    await sql`create table filler (id integer primary key, bytes blob)`.execute(database.db);
    return database;
  }

  it('the thread copies the WAL into the database file, so the WAL stays small while the writer never checkpoints under 16,000 pages', async () => {
    const db = await open();
    const checkpointer = db.walCheckpointer;
    expect(checkpointer?.running()).toBe(true);
    expect(await autocheckpoint(db)).toBe(16_000);
    // 6,000 pages in 20 commits: past SQLite's usual 1,000-page threshold six times over.
    for (let round = 0; round < 20; round++) {
      const before = checkpointer?.checkpointedFrames() ?? 0;
      await writePages(db, 300);
      await until('the thread checkpointing the new pages', () => (checkpointer?.checkpointedFrames() ?? 0) > before);
    }
    // The WAL was reused from its start after each complete checkpoint: it never held the 6,000 pages.
    expect(statSync(join(dir as string, 'feira.db-wal')).size).toBeLessThan(2_000 * 4096);
    // Each frame is counted once, however often the thread looks: 300 one-row pages a commit, plus the
    // table's interior page and the database header that each commit rewrites.
    await until('every frame counted', () => (checkpointer?.checkpointedFrames() ?? 0) >= 6_000);
    expect(checkpointer?.checkpointedFrames()).toBeLessThan(6_300);
    expect(statSync(join(dir as string, 'feira.db')).size).toBeGreaterThan(6_000 * 3900);
  });

  it('if the thread stops, the writing connection checkpoints by itself again (SQLite default, 1,000 pages)', async () => {
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

  it('under steady writes (a commit on every turn of the event loop) the thread restarts the WAL in quiet windows, so the writer never reaches its 16,000-page fallback (it never checkpoints on the event loop)', async () => {
    const db = await open({ intervalMs: 10, quietAtPages: 500 });
    const wal = join(dir as string, 'feira.db-wal');
    // 30,000 pages in commits of 4, one per turn: each checkpoint of the thread overlaps new commits,
    // so without quiet windows the WAL is never all copied when a write begins, is never reused, and
    // grows to the writer's fallback (16,000 pages), which then checkpoints on the event loop.
    for (let i = 0; i < 7_500; i++) {
      await writePages(db, 4);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const quiet = db.walCheckpointer?.quietWindows();
    expect(quiet?.windows).toBeGreaterThan(0);
    expect(quiet?.complete).toBeGreaterThan(0);
    // The WAL file keeps the largest size it reached (it is reused, not truncated). With the windows it
    // stays a few thousand pages past the threshold (up to 9,400 on a loaded CI host). A frame is a page
    // and a 24-byte header, so a WAL that reached the fallback is past this bound.
    expect(statSync(wal).size).toBeLessThan(16_000 * 4096);
    await until('the thread copying the last pages', () => statSync(join(dir as string, 'feira.db')).size > 29_000 * 3900);
  });

  /**
   * A writer whose checkpointer asks for a quiet window past 50 pages, and 100 pages written: `asItOpens`
   * runs when the window opens (the writer held), then the window is waited for. `count()` is a query of
   * the writer's; `events` says whether the window closed before it was answered.
   */
  async function writerAtItsFirstWindow(
    asItOpens: (checkpointer: WalCheckpointer) => Promise<void> | void,
    options: Pick<WalCheckpointerOptions, 'quietTimer'> = {},
  ) {
    const folder = mkdtempSync(join(tmpdir(), 'feira-wal-'));
    dir = folder;
    const file = join(folder, 'feira.db');
    const writer = openSqliteConnection(file);
    const kysely = new Kysely<Record<string, never>>({ dialect: new SqliteDialect({ database: writer }) });
    const events: string[] = [];
    let windowOpened: ((at: number) => void) | null = null;
    const opened = new Promise<number>((resolve) => {
      windowOpened = resolve;
    });
    const checkpointer = startWalCheckpointer(writer, file, {
      ...options,
      intervalMs: 10,
      quietAtPages: 50,
      holdWrites: (during) =>
        kysely.connection().execute(async () => {
          await asItOpens(checkpointer);
          windowOpened?.(performance.now());
          await during();
          events.push('window closed');
        }),
    });
    const close = async () => {
      await checkpointer.stop();
      await kysely.destroy();
    };
    try {
      await sql`create table filler (id integer primary key, bytes blob)`.execute(kysely);
      // 100 pages in one commit: the WAL holds at least that many until a write after a full checkpoint.
      await kysely.transaction().execute(async (trx) => {
        for (let i = 0; i < 100; i++) await sql`insert into filler (bytes) values (randomblob(3900))`.execute(trx);
      });
      const openedAt = await opened;
      const count = () =>
        sql<{ n: number }>`select count(*) as n from filler`.execute(kysely).then(({ rows }) => {
          events.push('query answered');
          return Number(rows[0]?.n);
        });
      return { kysely, checkpointer, events, openedAt, count, close };
    } catch (error) {
      await close();
      throw error;
    }
  }

  it("the writer's queries wait while a quiet window lasts, and a window whose thread dies as it opens ends at once (the writer checkpoints by itself again)", async () => {
    // The thread dies as the window opens: it never says its checkpoint is done.
    const at = await writerAtItsFirstWindow((checkpointer) => checkpointer.thread.terminate().then(() => {}));
    try {
      expect(await at.count()).toBe(100);
      expect(at.events).toEqual(['window closed', 'query answered']);
      expect(at.checkpointer.running()).toBe(false);
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(at.kysely);
      expect(Number(rows[0]?.wal_autocheckpoint)).toBe(1000);
    } finally {
      await at.close();
    }
  });

  it("a quiet window whose thread never answers is closed at its timeout anyway: the writer's queries wait no longer, and the thread keeps running", async () => {
    let unanswered = 0;
    // The window's timeout, fired by hand: its delay is recorded, and it runs out when the test says.
    const timeouts: Array<{ ms: number; fire: () => void }> = [];
    const at = await writerAtItsFirstWindow(
      ({ thread }) => {
        // The window's "checkpoint now" never reaches the thread, as if it were stuck: it never answers.
        const post = thread.postMessage.bind(thread);
        thread.postMessage = (message: unknown) => {
          if (message === 'quiet') unanswered += 1;
          else post(message);
        };
      },
      {
        quietTimer: (close, ms) => {
          timeouts.push({ ms, fire: close });
          return () => {};
        },
      },
    );
    try {
      const answered = at.count();
      // Turns of the event loop go by: the window stays open and the writer's query waits…
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(at.events).toEqual([]);
      // …until the window's 500 ms timeout runs out.
      expect(timeouts.map((t) => t.ms)).toEqual([500]);
      timeouts[0]?.fire();
      expect(await answered).toBe(100);
      expect(at.events).toEqual(['window closed', 'query answered']);
      expect(unanswered).toBe(1);
      expect(at.checkpointer.quietWindows().windows).toBe(0);
      expect(at.checkpointer.running()).toBe(true);
    } finally {
      await at.close();
    }
  });

  it('an in-memory database has no file to checkpoint and no thread', async () => {
    database = await openDatabase('sqlite::memory:');
    expect(database.walCheckpointer).toBeUndefined();
  });
});
