import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@feira/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `feira seed` run as a real process, the way a user runs it.

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'packages/cli/src/bin.ts');

function runFeira(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', bin, ...args], {
      cwd: root,
      // @feira/* resolve to the TypeScript sources, as in the tests.
      env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.typecheck.json'), NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

interface SeedTarget {
  name: string;
  /** Creates an empty database and returns its URL as the user passes it to --database. */
  create(): Promise<string>;
  drop(): Promise<void>;
}

function sqliteTarget(): SeedTarget {
  const file = join(tmpdir(), `feira-seed-${randomBytes(6).toString('hex')}.db`);
  return {
    name: 'SQLite',
    create: async () => `sqlite:${file}`,
    drop: async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
  };
}

/** A scratch schema, named to the CLI through the URL's `options=-c search_path=…` (libpq's own parameter). */
function postgresTarget(serverUrl: string): SeedTarget {
  const schema = `feira_seed_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'PostgreSQL',
    create: async () => {
      await admin(`create schema ${schema}`);
      return `${serverUrl}${serverUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    },
    drop: () => admin(`drop schema if exists ${schema} cascade`),
  };
}

const targets = [
  sqliteTarget(),
  ...(process.env.FEIRA_TEST_DATABASE_URL ? [postgresTarget(process.env.FEIRA_TEST_DATABASE_URL)] : []),
];

describe.each(targets)('feira seed (real process, $name)', (target) => {
  let url = '';

  beforeAll(async () => {
    url = await target.create();
    const database = await openDatabase(url);
    await migrateToLatest(database);
    const now = new Date('2026-01-15T12:00:00.000Z').toISOString();
    await database.db
      .insertInto('sellers')
      .values({ id: 's-1', name: 'Seller', login: 'seller', password_hash: 'x', created_at: now })
      .execute();
    await database.db.insertInto('tenants').values({ id: 't-1', seller_id: 's-1', name: 'Store', created_at: now }).execute();
    await database.close();
  });
  afterAll(() => target.drop());

  it('fills the tenant with the requested counts and reports the rate', async () => {
    const run = await runFeira([
      'seed',
      '--tenant',
      't-1',
      '--orders',
      '2_000',
      '--products',
      '150',
      '--tickets',
      '40',
      '--transactions',
      '300',
      '--database',
      url,
    ]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /seeded 2490 rows into tenant t-1 .*\(products 150, orders 2000, tickets 40, transactions 300\) in [\d.]+ s: \d+ rows\/s/,
    );
    const database = await openDatabase(url);
    try {
      for (const [table, n] of [
        ['orders', 2000],
        ['products', 150],
        ['tickets', 40],
        ['transactions', 300],
      ] as const) {
        const row = await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', 't-1')
          .executeTakeFirstOrThrow();
        expect(Number(row.n), table).toBe(n);
      }
    } finally {
      await database.close();
    }
  }, 60_000);

  it('exits 1 with a message for an unknown tenant, and rejects a count that is not a number', async () => {
    const unknown = await runFeira(['seed', '--tenant', 'nope', '--orders', '10', '--database', url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Tenant not found');
    const bad = await runFeira(['seed', '--tenant', 't-1', '--orders', 'many', '--database', url]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--orders');
  }, 60_000);
});
