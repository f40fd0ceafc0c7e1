// On SQLite the quote log lives in a file of its own, written by a worker thread
// (quote-log-file.ts). spec-notes Q7 still holds there: every call is in the
// log, once, across restarts, an upgrade from the log in the platform's
// database, and a writer thread that dies.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { quoteLogStoreFor } from '../../src/shipping/quote-log/quote-log.js';
import { openQuoteLogFile, quoteLogFileOf } from '../../src/shipping/quote-log/quote-log-file.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openSqliteTestDatabase } from '../../src/test-databases.js';
import { createTestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { logged, quoteCallsAfterRestart, quoteCallRow as row } from './shipping-kit.js';

const TENANT = '20000000-0000-4000-8000-000000000001';
const CHILD = new URL('./quote-log-process.ts', import.meta.url).pathname;
const sqlite = testDatabaseTargets().find((target) => target.dialect === 'sqlite');

async function platformRowCount(database: Database): Promise<number> {
  const { count } = await database.db
    .selectFrom('quote_calls')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The numbers (`quoteCallRow`) of a store's rows as a later start reads them. */
async function loggedAfterRestart(database: Database, tenantId: string): Promise<number[]> {
  return (await quoteCallsAfterRestart(database, tenantId)).map((r) => r.latency_ms);
}

describe('quote log in its own SQLite file', () => {
  it('names the file beside the database: data/feira.db → data/feira.quote-log.db', () => {
    expect(quoteLogFileOf('data/feira.db')).toBe('data/feira.quote-log.db');
    expect(quoteLogFileOf('/var/lib/feira/store')).toBe('/var/lib/feira/store.quote-log');
  });

  it('spec-notes Q7: rows go to the log file, not the platform database, and are there after a restart', async () => {
    const database = await openSqliteTestDatabase();
    try {
      const store = quoteLogStoreFor(database);
      await store.write([row(TENANT, 1), row(TENANT, 2)]);
      await store.write([row(TENANT, 3)]);
      await store.close();
      expect(existsSync(quoteLogFileOf(database.sqliteFile as string))).toBe(true);
      expect(await platformRowCount(database)).toBe(0);

      const reopened = quoteLogStoreFor(database);
      try {
        expect(await logged(reopened, TENANT)).toEqual([1, 2, 3]);
        // A batch written twice (say, after a writer thread died before confirming it) is logged once.
        await reopened.write([row(TENANT, 3), row(TENANT, 4)]);
        expect(await logged(reopened, TENANT)).toEqual([1, 2, 3, 4]);
      } finally {
        await reopened.close();
      }
    } finally {
      await database.close();
    }
  });

  it('spec-notes Q7: rows an earlier version logged in the platform database move to the log file, none lost or doubled', async () => {
    const platform = await createTestPlatform(sqlite);
    try {
      const tenantId = (await platform.createSeller()).tenantIds[0] as string;
      const { database } = platform;
      // A move cut short: row 5 reached the log file but was not yet deleted from the platform database.
      const first = quoteLogStoreFor(database);
      await first.write([row(tenantId, 5)]);
      await first.close();
      // More than one chunk of earlier rows (the move goes 1,000 at a time).
      const earlier = Array.from({ length: 2500 }, (_, i) => row(tenantId, i + 1));
      for (let i = 0; i < earlier.length; i += 500) {
        await database.db
          .insertInto('quote_calls')
          .values(earlier.slice(i, i + 500))
          .execute();
      }

      expect(await loggedAfterRestart(database, tenantId)).toEqual(earlier.map((_, i) => i + 1));
      expect(await platformRowCount(database)).toBe(0);
    } finally {
      await platform.close();
    }
  });

  it('spec-notes Q7: if the writer thread dies, the batch it held and every later one are written on the main thread, reported once', async () => {
    const database = await openSqliteTestDatabase();
    let writer: Worker | undefined;
    const troubles: string[] = [];
    const store = openQuoteLogFile(database, quoteLogFileOf(database.sqliteFile as string), {
      onWriterThread: (worker) => {
        writer = worker;
      },
    });
    store.onTrouble((_error, message) => troubles.push(message));
    try {
      await store.write([row(TENANT, 1)]);
      if (!writer) throw new Error('the log file has no writer thread');
      // A batch handed to the thread as it dies: written by it or, unconfirmed, on the main thread.
      const held = store.write([row(TENANT, 2)]);
      await writer.terminate();
      await held;
      await store.write([row(TENANT, 3)]);
      await store.write([row(TENANT, 4)]);
      expect(await logged(store, TENANT)).toEqual([1, 2, 3, 4]);
      expect(troubles).toEqual(["the quote log's writer thread stopped: the log is written on the main thread"]);
    } finally {
      await store.close();
      await database.close();
    }
  });

  it('spec-notes Q7: a batch handed to the writer thread is written before the store closes', async () => {
    const database = await openSqliteTestDatabase();
    try {
      const store = quoteLogStoreFor(database);
      await store.write([row(TENANT, 1)]);
      const inFlight = store.write([row(TENANT, 2), row(TENANT, 3)]);
      await store.close();
      await inFlight;
      expect(await loggedAfterRestart(database, TENANT)).toEqual([1, 2, 3]);
    } finally {
      await database.close();
    }
  });

  it('spec-notes Q7: a process whose last work is a log write waits for it, then ends by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-test-'));
    try {
      const file = join(dir, 'feira.db');
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, file, TENANT], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      // Exit code 13 is Node's "unsettled top-level await": the process ended while the write was pending.
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'written' });
      const database = await openDatabase(`sqlite:${file}`);
      try {
        expect(await loggedAfterRestart(database, TENANT)).toEqual([1]);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spec-notes Q7: a log file that cannot be opened fails the write, and is tried again at the next one', async () => {
    const database = await openSqliteTestDatabase();
    // The log's folder is taken by a plain file, as a mistake on the disk would have it.
    const blocker = join(dirname(database.sqliteFile as string), 'blocker');
    writeFileSync(blocker, '');
    const store = openQuoteLogFile(database, join(blocker, 'feira.quote-log.db'));
    try {
      await expect(store.write([row(TENANT, 1)])).rejects.toThrow();
      rmSync(blocker);
      await store.write([row(TENANT, 2)]);
      expect(await logged(store, TENANT)).toEqual([2]);
    } finally {
      await store.close();
      await database.close();
    }
  });

  it('spec-notes Q7: SQLite in memory has no file to sit beside: the log stays in the platform database', async () => {
    const inMemory = {
      dialect: 'sqlite' as const,
      async open() {
        const database = await openDatabase('sqlite::memory:');
        await migrateToLatest(database);
        return database;
      },
    };
    const platform = await createTestPlatform(inMemory);
    try {
      const tenantId = (await platform.createSeller()).tenantIds[0] as string;
      const store = quoteLogStoreFor(platform.database);
      await store.write([row(tenantId, 1)]);
      expect(await platformRowCount(platform.database)).toBe(1);
      expect(await logged(store, tenantId)).toEqual([1]);
    } finally {
      await platform.close();
    }
  });
});
