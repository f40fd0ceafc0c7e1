import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@feira/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `feira seed` (issue 4) run as a real process, the way a user runs it.

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

describe('feira seed (real process, SQLite)', () => {
  const file = join(tmpdir(), `feira-seed-${randomBytes(6).toString('hex')}.db`);
  const url = `sqlite:${file}`;

  beforeAll(async () => {
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
  afterAll(() => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  });

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
      /seeded 2490 rows into tenant t-1 .*\(orders 2000, products 150, tickets 40, transactions 300\) in [\d.]+ s: \d+ rows\/s/,
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
