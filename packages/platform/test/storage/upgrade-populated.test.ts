import { spawn } from 'node:child_process';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SCOPE_NAMES } from '@feira/contract';
import { exportJWK, generateKeyPair } from 'jose';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { sha256Hex } from '../../src/core/hashing.js';
import { cryptoRandom } from '../../src/core/random.js';
import { refreshTokenKeys } from '../../src/identity/refresh-token-key.js';
import { recordTokenSet, signTokenSet } from '../../src/identity/token-set-issuer.js';
import { TokenSigner } from '../../src/identity/token-signer.js';
import { appendEvent } from '../../src/records/outbox.js';
import { seedRecords } from '../../src/records/seed-records.js';
import { importFreightTable } from '../../src/shipping/freight/freight-table-store.js';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest, pendingMigrations } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import type { Schema } from '../../src/storage/schema.js';
import { sharedDatabaseUrl, testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, pollUntil, type TestPlatform, testConfig } from '../../src/testing.js';
import { fanOutEvents } from '../../src/webhooks/fan-out.js';
import { signUp, storeSubscriptionSecret } from '../../src/webhooks/subscription-store.js';
import { vtexCsv } from '../shipping/freight-kit.js';

// Upgrades on a populated database (docs/deploy.md "Upgrading"): the schema
// the previous release left, with a store's data in it written as that
// release wrote it, migrated to this release's head while the previous
// release keeps writing (a separate process writing with the old statements'
// columns); every row is still there, and this release serves it: records
// listed with a token the old release signed, that grant's refresh token
// rotating, the webhook secret opening, the deliveries listed.

/** The last migration of the previous release (the commit before this release's first migration). */
export const PREVIOUS_RELEASE_MIGRATION = '0024-attempt-response-headers';

/**
 * The previous release's secret box: `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM under a key hashed from the
 * server secret, naming no secret (this release seals `v2` values that do, and still opens these).
 */
class PreviousReleaseBox {
  readonly #key: Buffer;
  constructor(serverSecret: string) {
    this.#key = createHash('sha256').update(`feira-secret-box:${serverSecret}`).digest();
  }
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }
  open(): string {
    throw new Error('the previous release box only seals here');
  }
}

const WRITER = fileURLToPath(new URL('./old-release-writer.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The previous release serving beside the migration: a process writing orders, events and quote calls as it did. */
function startOldWriter(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.typecheck.json', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    async stop(): Promise<{ acknowledged: string[]; errors: string[] }> {
      child.stdin.write('stop\n');
      const code = await exited;
      if (code !== 0) throw new Error(`the old release's writer exited ${code}: ${err}`);
      return JSON.parse(out.trim()) as { acknowledged: string[]; errors: string[] };
    },
    kill: () => child.kill(),
  };
}

/** Every row of each table, with the columns given (the previous release's: a later migration may add some), in one canonical order. */
async function snapshotColumns(db: Kysely<Schema>, columns: Record<string, string[]>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, names] of Object.entries(columns)) {
    const { rows } = await sql<
      Record<string, unknown>
    >`select ${sql.join(names.map((n) => sql.ref(n)))} from ${sql.table(table)}`.execute(db);
    out[table] = rows
      .map((row) =>
        JSON.stringify(Object.fromEntries(names.map((k) => [k, typeof row[k] === 'bigint' ? Number(row[k]) : row[k]]))),
      )
      .sort();
  }
  return out;
}

describe.each(testDatabaseTargets())('an upgrade from the previous release on a populated database ($dialect)', (target) => {
  let database: Database | undefined;
  let platform: TestPlatform | undefined;
  let writer: ReturnType<typeof startOldWriter> | undefined;
  afterEach(async () => {
    writer?.kill();
    writer = undefined;
    if (platform) await platform.close();
    else await database?.close();
    platform = undefined;
    database = undefined;
  });

  it('keeps every row the previous release wrote, and those it writes during the migration, and this release serves them', async () => {
    database = await target.openEmpty();
    const names = Object.keys(migrations);
    const previous = names.slice(0, names.indexOf(PREVIOUS_RELEASE_MIGRATION) + 1);
    expect(await migrateToLatest(database, { through: PREVIOUS_RELEASE_MIGRATION })).toEqual(previous);
    const { db } = database;
    const config = testConfig();
    const clock = new ManualClock('2026-11-20T09:00:00.000Z');
    const box = new PreviousReleaseBox(config.secretKey);
    const deps = { clock, random: cryptoRandom, database, box };
    const at = clock.now().toISOString();

    // A seller with two stores, an app the seller granted, and the store's business.
    await db
      .insertInto('sellers')
      .values({ id: 's1', name: 'Loja', login: 'loja', password_hash: 'x', created_at: at })
      .execute();
    for (const id of ['t1', 't2'])
      await db.insertInto('tenants').values({ id, seller_id: 's1', name: id, created_at: at }).execute();
    const clientSecret = 'the-app-secret-0123456789abcdefghij';
    await db
      .insertInto('clients')
      .values({
        id: 'app',
        name: 'Integração',
        secret_hash: sha256Hex(clientSecret),
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: JSON.stringify(['https://app.example/callback']),
        scopes: JSON.stringify(SCOPE_NAMES),
        default_scopes: '[]',
        terms_of_use_url: null,
        privacy_policy_url: null,
        created_at: at,
      })
      .execute();
    const seeded = await seedRecords(database, 't1', { orders: 40, products: 30, tickets: 20, transactions: 20 }, deps);
    expect(seeded.rows).toBe(110);
    const [subscription] = await signUp(
      db,
      { clientId: 'app', tenantId: 't1', topics: ['order'], url: 'https://127.0.0.1:9/hooks', version: 'v1' },
      deps,
    );
    const orderIds = (await db.selectFrom('orders').select('id').where('tenant_id', '=', 't1').execute()).map((r) => r.id);
    const events: string[] = [];
    for (const recordId of orderIds.slice(0, 12)) {
      events.push(
        await appendEvent(
          db,
          { tenantId: 't1', topic: 'order', status: 'UPDATE', recordId, resource: `/seller/v1/orders/${recordId}` },
          deps,
        ),
      );
      clock.advance(1_000);
    }
    const lease = { worker: 'old-w', leaseUntilIso: new Date(clock.now().getTime() + 60_000).toISOString(), max: 50 };
    const { leased } = await fanOutEvents(database, deps, 50, lease);
    expect(leased).toHaveLength(events.length);
    for (const { claim } of leased) {
      // The attempt log as the previous release wrote it (its columns, response headers included).
      await db
        .insertInto('webhook_delivery_attempts')
        .values({
          delivery_id: claim.id,
          attempt: 1,
          fence: claim.fence,
          worker: 'old-w',
          outcome: 'succeeded',
          status_code: 200,
          duration_ms: 7,
          error: null,
          response_body: '{"ok":true}',
          request_headers: '{"webhook-id":"x"}',
          response_headers: '{"content-type":"application/json"}',
          next_attempt_at: null,
          started_at: clock.now().toISOString(),
        })
        .execute();
    }
    await db
      .updateTable('webhook_deliveries')
      .set({ state: 'succeeded', attempts: 1, lease_owner: null, lease_until: null, delivered_at: clock.now().toISOString() })
      .execute();
    for (let i = 0; i < 15; i++) {
      await db
        .insertInto('quote_calls')
        .values({
          id: cryptoRandom.uuid(),
          tenant_id: 't1',
          session_id: cryptoRandom.uuid(),
          purpose: 'storefront',
          outcome: i % 5 === 0 ? 'timeout' : 'ok',
          latency_ms: 40 + i,
          http_status: i % 5 === 0 ? null : 200,
          detail: null,
          fallback_used: 0,
          gateway_kind: null,
          created_at: clock.now().toISOString(),
        })
        .execute();
    }
    const freight = vtexCsv([
      '01000000;01999999;Capital;0;1000;12,90;0;0;;3;BRA;0',
      '02000000;09999999;Interior;0;1000;19,90;0;0;;5;BRA;0',
    ]);
    const imported = await importFreightTable(
      deps,
      { owner: 't1', tableId: 'rates', name: 'Tabela', distributionCenterId: null, cubicWeightFactor: null },
      Readable.from([freight]),
    );
    expect(imported.ok).toBe(true);

    // The grant, as the previous release's token endpoint issued it: its signing key, family and refresh token.
    // Its signing key row had no signs_from: a key signed from its creation until the next one was made.
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = 'previous-release-key';
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    await db
      .insertInto('signing_keys')
      .values({
        kid,
        alg: 'ES256',
        public_jwk: JSON.stringify(publicJwk),
        private_jwk_sealed: box.seal(JSON.stringify(await exportJWK(privateKey))),
        created_at: at,
        retired_at: null,
      } as never)
      .execute();
    const keyRing = { current: { kid, privateKey, publicJwk }, verificationKey: () => publicKey };
    const signer = new TokenSigner({
      keyRing,
      refreshKeys: refreshTokenKeys([config.secretKey]),
      clock,
      random: cryptoRandom,
      issuer: config.authUrl,
      apiAudience: config.publicUrl,
    });
    await db
      .insertInto('token_families')
      .values({
        id: 'fam',
        client_id: 'app',
        seller_id: 's1',
        created_at: clock.now().toISOString(),
        revoked_at: null,
        revoked_reason: null,
      })
      .execute();
    const signed = await signTokenSet(
      { signer, clock, config },
      { familyId: 'fam', clientId: 'app', sellerId: 's1', scope: SCOPE_NAMES.join(' '), tenants: ['t1', 't2'], parentJti: null },
    );
    const tokens = await recordTokenSet(db, target.dialect, signed);

    // What the previous release left, row by row, and the columns each of its tables had.
    const tables = (await db.introspection.getTables())
      .map((t) => t.name)
      .filter((name) => !name.startsWith('kysely_'))
      .sort();
    const oldColumns = Object.fromEntries(
      (await db.introspection.getTables())
        .filter((t) => tables.includes(t.name))
        .map((t) => [t.name, t.columns.map((c) => c.name).sort()]),
    );
    const before = await snapshotColumns(db, oldColumns);
    expect(before.orders?.length).toBe(40);

    // The previous release keeps writing, in another process, before, during and after the migration.
    const shared = await sharedDatabaseUrl(database);
    writer = startOldWriter({ FEIRA_DATABASE_URL: shared.url, FEIRA_TENANT_ID: 't2' });
    const writtenBy = async () =>
      Number(
        (
          await db
            .selectFrom('orders')
            .select(sql<number>`count(*)`.as('n'))
            .where('tenant_id', '=', 't2')
            .executeTakeFirstOrThrow()
        ).n,
      );
    await pollUntil('the old release writing', async () => ((await writtenBy()) >= 20 ? true : undefined), {
      deadlineMs: 30_000,
    });
    const applied = await migrateToLatest(database);
    expect(applied).toEqual(names.slice(previous.length));
    const atMigrated = await writtenBy();
    await pollUntil(
      'the old release writing on the new schema',
      async () => ((await writtenBy()) >= atMigrated + 20 ? true : undefined),
      {
        deadlineMs: 30_000,
      },
    );
    const { acknowledged, errors } = await writer.stop();
    writer = undefined;
    expect(errors).toEqual([]);
    expect(await pendingMigrations(database)).toEqual([]);

    // Every row the previous release wrote is there, each column as it was…
    const after = await snapshotColumns(db, oldColumns);
    for (const table of tables) {
      if (table === 'orders' || table === 'outbox_events' || table === 'quote_calls') {
        // …with the rows the old release wrote meanwhile beside them.
        const ofT1 = (rows: string[] | undefined) =>
          rows?.filter((row) => (JSON.parse(row) as { tenant_id: string }).tenant_id !== 't2');
        expect(ofT1(after[table]), table).toEqual(before[table]);
      } else {
        expect(after[table], table).toEqual(before[table]);
      }
    }
    // …and every write it saw commit, with its event and quote call.
    const t2Orders = await db.selectFrom('orders').select('id').where('tenant_id', '=', 't2').execute();
    expect(t2Orders.map((r) => r.id).sort()).toEqual([...acknowledged].sort());
    const t2Events = await db.selectFrom('outbox_events').select('record_id').where('tenant_id', '=', 't2').execute();
    expect(t2Events.map((r) => r.record_id).sort()).toEqual([...acknowledged].sort());
    expect(acknowledged.length).toBeGreaterThanOrEqual(atMigrated + 20);

    // This release, started on the upgraded database, serves it all.
    const opened = database;
    database = undefined;
    platform = await createTestPlatform({ dialect: target.dialect, open: async () => opened }, { clock, config });
    const { app } = platform;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    // Records, listed with the access token the previous release signed.
    const listed: string[] = [];
    for (let url: string | null = '/v1/orders?_limit=25'; url; ) {
      const page = await app.inject({ method: 'GET', url, headers: { ...bearer(tokens.access_token), 'x-tenant-id': 't1' } });
      expect(page.statusCode, page.body).toBe(200);
      const body = page.json() as { results: Array<{ id: string }>; meta: { links: { next: string | null } } };
      listed.push(...body.results.map((o) => o.id));
      url = body.meta.links.next ? new URL(body.meta.links.next).pathname + new URL(body.meta.links.next).search : null;
    }
    expect(listed.sort()).toEqual([...orderIds].sort());

    // Its refresh token rotates, and the new access token reads the other store, the old release's writes included.
    const basic = Buffer.from(`app:${clientSecret}`).toString('base64');
    const refreshed = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const fresh = refreshed.json() as { access_token: string };
    const t2 = await app.inject({
      method: 'GET',
      url: '/v1/orders?_limit=1',
      headers: { ...bearer(fresh.access_token), 'x-tenant-id': 't2' },
    });
    expect(t2.statusCode, t2.body).toBe(200);

    // The webhook secret sealed by the previous release opens with the same server secret.
    const opened1 = await storeSubscriptionSecret(
      platform.database.db,
      { tenantId: 't1', id: subscription?.id as string },
      app.platform.box,
    );
    expect(opened1?.secret).toBe(subscription?.secret);

    // The delivery log lists every delivery with its attempt.
    const deliveries = await app.inject({
      method: 'GET',
      url: '/seller/v1/webhooks/deliveries?_limit=50',
      headers: { ...bearer(fresh.access_token), 'x-tenant-id': 't1' },
    });
    expect(deliveries.statusCode, deliveries.body).toBe(200);
    const log = deliveries.json() as { results: unknown[] };
    expect(log.results).toHaveLength(events.length);

    // The freight table downloads as uploaded, and the quote log lists the calls.
    const table = await app.inject({
      method: 'GET',
      url: '/admin/v1/tenants/t1/shipping/freight-tables/rates?format=original',
      headers: { authorization: `Bearer ${config.adminToken}` },
    });
    expect(table.statusCode, table.body).toBe(200);
    // Cell by cell, as numbers where they are (the download writes its own number format).
    const cells = (csv: string) =>
      csv
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((line) =>
          line
            .split(';')
            .map((cell) => (cell === '' || Number.isNaN(Number(cell.replace(',', '.'))) ? cell : Number(cell.replace(',', '.')))),
        );
    expect(cells(table.body)).toEqual(cells(freight));
    const calls = await app.inject({
      method: 'GET',
      url: '/admin/v1/tenants/t1/shipping/quote-calls?_limit=50',
      headers: { authorization: `Bearer ${config.adminToken}` },
    });
    expect(calls.statusCode, calls.body).toBe(200);
    expect((calls.json() as { results: unknown[] }).results).toHaveLength(15);
  }, 120_000);

  it.runIf(target.dialect === 'postgres')(
    'the retention indexes built beforehand with CREATE INDEX CONCURRENTLY, as docs/deploy.md says for a large database, are kept and the migration goes on',
    async () => {
      database = await target.openEmpty();
      await migrateToLatest(database, { through: PREVIOUS_RELEASE_MIGRATION });
      const { RETENTION_INDEXES } = await import('../../src/storage/migrations/0028-retention.js');
      for (const [table, column] of RETENTION_INDEXES) {
        await sql`create index concurrently ${sql.id(`${table}_${column}_idx`)} on ${sql.table(table)} (${sql.ref(column)})`.execute(
          database.db,
        );
      }
      await migrateToLatest(database);
      expect(await pendingMigrations(database)).toEqual([]);
      const { rows } = await sql<{ name: string }>`
        select indexname as name from pg_indexes where schemaname = current_schema() and indexname like '%\_idx'`.execute(
        database.db,
      );
      for (const [table, column] of RETENTION_INDEXES) expect(rows.map((r) => r.name)).toContain(`${table}_${column}_idx`);
    },
  );
});
