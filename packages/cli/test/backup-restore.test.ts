import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../platform/src/core/clock.js';
import { guardProbe } from '../../platform/src/identity/test-support/guard-probe.js';
import { createPlatform, type Platform } from '../../platform/src/platform.js';
import { openPostgresTestDatabase, sharedDatabaseUrl } from '../../platform/src/test-databases.js';
import { TEST_ADMIN_TOKEN, type TestPlatform, testConfig, testKit } from '../../platform/src/testing.js';
import { signingSecrets } from '../../platform/src/webhooks/webhook-secret.js';
import { runFeira } from './feira-process.js';

// Backups that are tested (docs/deploy.md "Backup and restore"): a copy made
// while the platform runs, restored elsewhere, serves the same records,
// verifies the tokens the original signed and opens its webhook secrets with
// the same key. SQLite through `feira backup` / `feira restore`; PostgreSQL
// through the pg_dump / pg_restore commands the docs give.

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const WEBHOOK_SECRET = 'whsec_backup-test-secret-0123456789abcdef';

/** Rows a restored platform must give back: a seller, a token it verifies, a sealed webhook secret. */
async function populate(kit: TestPlatform) {
  const seller = await kit.createSeller({ login: `backup-${randomBytes(4).toString('hex')}@example.com` });
  const token = await kit.mintAccessToken({ tenants: seller.tenantIds, scopes: ['open:order-order:read'] });
  const at = kit.clock.now().toISOString();
  await kit.database.db
    .insertInto('webhook_subscriptions')
    .values({
      id: 'sub-backup',
      client_id: 'c',
      tenant_id: seller.tenantIds[0] as string,
      topic: 'orders',
      version: 'v1',
      url: 'https://hooks.example/feira',
      secret_sealed: kit.app.platform.box.seal(WEBHOOK_SECRET),
      previous_secret_sealed: null,
      previous_secret_grace_until: null,
      state: 'active',
      failing_since: null,
      disabled_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { seller, token };
}

/** What the restored platform answers for what `populate` wrote. */
async function expectRestored(restored: Platform, written: Awaited<ReturnType<typeof populate>>) {
  const app = restored.app as NonNullable<Platform['app']>;
  const seller = await app.inject({ method: 'GET', url: `/admin/v1/sellers/${written.seller.sellerId}`, headers: admin });
  expect(seller.statusCode).toBe(200);
  expect(seller.json().login).toBe(written.seller.login);
  const probe = await guardProbe(app.identity);
  try {
    expect(await probe.status(written.token)).toBe(200);
  } finally {
    await probe.app.close();
  }
  const row = await restored.database.db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('id', '=', 'sub-backup')
    .executeTakeFirstOrThrow();
  expect(signingSecrets(row, restored.context.box, restored.context.clock.now())).toEqual([WEBHOOK_SECRET]);
}

describe('feira backup and feira restore (SQLite)', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-backup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function feira(...args: string[]) {
    const p = runFeira(args);
    const code = await p.exited;
    return { code, stdout: p.stdout(), stderr: p.stderr() };
  }

  it('a copy made while the platform runs, restored into another data folder, serves the same records, verifies old tokens and opens the same webhook secrets', async () => {
    const source = join(dir, 'source');
    mkdirSync(source, { mode: 0o700 });
    const secretKey = `backup-secret-key-${randomBytes(8).toString('hex')}`;
    writeFileSync(join(source, 'secret-key'), `${secretKey}\n`, { mode: 0o600 });
    writeFileSync(join(source, 'admin-token'), `${TEST_ADMIN_TOKEN}\n`, { mode: 0o600 });
    const clock = new ManualClock();
    const config = (key: string) => testConfig({ secretKey: key });
    const running = await createPlatform({
      databaseUrl: `sqlite:${join(source, 'feira.db')}`,
      config: config(secretKey),
      clock,
      roles: { api: true, dispatcher: false },
      sandboxClockRefreshMs: 0,
    });
    let written: Awaited<ReturnType<typeof populate>>;
    const copy = join(dir, 'copy');
    try {
      const kit = testKit(running, clock);
      written = await populate(kit);
      // The quote log's file too, with a row in it.
      await kit.app.shipping.quoteLog.store.open();
      const backedUp = await feira('backup', copy, '--data-dir', source);
      expect(backedUp.stderr).toBe('');
      expect(backedUp.code).toBe(0);
      expect(readdirSync(copy).sort()).toEqual(['admin-token', 'feira.db', 'feira.quote-log.db', 'secret-key']);
      expect(statSync(copy).mode & 0o777).toBe(0o700);
      for (const file of readdirSync(copy)) expect(statSync(join(copy, file)).mode & 0o777).toBe(0o600);
      // A later write is not in the copy: it is the database at one commit.
      await kit.createSeller({ login: 'after-the-backup@example.com' });
    } finally {
      await running.close();
    }

    const target = join(dir, 'target');
    const restored = await feira('restore', copy, '--data-dir', target);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(readFileSync(join(target, 'secret-key'), 'utf8').trim()).toBe(secretKey);
    const platform = await createPlatform({
      databaseUrl: `sqlite:${join(target, 'feira.db')}`,
      config: config(readFileSync(join(target, 'secret-key'), 'utf8').trim()),
      clock: new ManualClock(),
      roles: { api: true, dispatcher: false },
      sandboxClockRefreshMs: 0,
    });
    try {
      await expectRestored(platform, written);
      const later = await platform.database.db
        .selectFrom('sellers')
        .select('id')
        .where('login', '=', 'after-the-backup@example.com')
        .execute();
      expect(later).toEqual([]);
    } finally {
      await platform.close();
    }

    // A restore never overwrites a database, and the backup never writes into a folder that holds something.
    const again = await feira('restore', copy, '--data-dir', target);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/feira restore: .*feira\.db exists: stop the platform and move it away first/);
    const overwrite = await feira('backup', copy, '--data-dir', target);
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toMatch(/is not empty: name a new folder/);
  });

  it('feira backup of a PostgreSQL platform says to use pg_dump (exit 1)', async () => {
    const result = await feira(
      'backup',
      join(dir, 'pg-copy'),
      '--database',
      'postgres://db.example/feira',
      '--data-dir',
      join(dir, 'pg'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/back up PostgreSQL with pg_dump and pg_restore/);
  });
});

const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;

describe.runIf(pgUrl)('pg_dump and pg_restore as docs/deploy.md gives them (PostgreSQL)', { timeout: 120_000 }, () => {
  it('a dump restored into a new database serves the same records, verifies old tokens and opens the same webhook secrets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-pgdump-'));
    const secretKey = `backup-secret-key-${randomBytes(8).toString('hex')}`;
    const clock = new ManualClock();
    const database = await openPostgresTestDatabase(pgUrl as string);
    const running = await createPlatform({
      database,
      config: testConfig({ secretKey }),
      clock,
      roles: { api: true, dispatcher: false },
    });
    const restoredName = `feira_restore_${randomBytes(6).toString('hex')}`;
    const server = new URL(pgUrl as string);
    const restoredUrl = new URL(server);
    restoredUrl.pathname = `/${restoredName}`;
    let written: Awaited<ReturnType<typeof populate>>;
    let schema: string;
    try {
      written = await populate(testKit(running, clock));
      ({ schema } = (await sharedDatabaseUrl(database)) as { schema: string });
      const dump = join(dir, 'feira.dump');
      // docs/deploy.md: pg_dump --format=custom (here of the test's own schema, beside other tests' schemas).
      execFileSync('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, '--dbname', server.toString()]);
      const adminClient = new pg.Client({ connectionString: server.toString() });
      await adminClient.connect();
      await adminClient.query(`create database ${restoredName}`);
      await adminClient.end();
      execFileSync('pg_restore', ['--no-owner', `--dbname=${restoredUrl.toString()}`, dump]);
    } finally {
      await running.close();
      await database.close();
    }
    restoredUrl.searchParams.set('options', `-c search_path=${schema}`);
    const platform = await createPlatform({
      databaseUrl: restoredUrl.toString(),
      config: testConfig({ secretKey }),
      clock: new ManualClock(),
      roles: { api: true, dispatcher: false },
      sandboxClockRefreshMs: 0,
    });
    try {
      await expectRestored(platform, written);
    } finally {
      await platform.close();
      const adminClient = new pg.Client({ connectionString: server.toString() });
      await adminClient.connect();
      await adminClient.query(`drop database if exists ${restoredName}`);
      await adminClient.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
