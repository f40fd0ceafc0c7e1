// Work-count guards of a refused freight upload (D124, docs/security.md "Tenant isolation"): what a
// hostile store's upload makes the database do, counted, so a change that looks the store up before a
// header check, opens the import's COPY before the body is read, or holds a pooled connection while a
// body arrives fails here whatever the host's speed. A store's uploads refused by their bucket cost no
// statement once this process has seen the bucket refuse.

import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XLSX_MEDIA_TYPE } from '../../src/shipping/freight/freight-xlsx.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, pollUntil, type TestPlatform, testConfig } from '../../src/testing.js';
import { CLAIMING_ROWS, distinctRows, tableUrl, vtexCsv } from '../shipping/freight-kit.js';
import { admin } from '../shipping/shipping-kit.js';
import { sharedStringsBomb } from '../shipping/xlsx-bombs.js';

const require = createRequire(import.meta.url);

/**
 * The statements of the upload path that `run` sends, by their text: the store's row, the upload
 * bucket, the freight tables, versions and rows, the import's advisory lock and COPY. Counted by
 * what they touch, not all statements, so the platform's own timers (the sandbox clock's refresh,
 * signing keys) running meanwhile, which touch none of these, cannot move the count of a request
 * that waits a second for a workbook's thread.
 */
async function uploadStatements<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const touched = /\b(tenants|api_rate_buckets|freight_tables|freight_table_versions|freight_rows)\b|advisory_lock/i;
  const statements: string[] = [];
  const record = (text: unknown) => {
    if (typeof text === 'string' && touched.test(text)) statements.push(text.replace(/\s+/g, ' ').slice(0, 80));
  };
  const BetterSqlite = require('better-sqlite3') as new (file: string) => { prepare(sql: string): object; close(): void };
  const probe = new BetterSqlite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const pg = require('pg') as { Client: { prototype: Record<string, (...args: unknown[]) => unknown> } };
  const originals: Array<[Record<string, (...args: unknown[]) => unknown>, string, (...args: unknown[]) => unknown]> = [];
  const wrap = (
    target: Record<string, (...args: unknown[]) => unknown>,
    name: string,
    textOf: (self: unknown, args: unknown[]) => unknown,
  ) => {
    const original = target[name] as (...args: unknown[]) => unknown;
    originals.push([target, name, original]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      record(textOf(this, args));
      return original.apply(this, args);
    };
  };
  for (const method of ['all', 'get', 'run', 'iterate']) wrap(statement, method, (self) => (self as { source?: string }).source);
  wrap(pg.Client.prototype, 'query', (_self, [first]) =>
    typeof first === 'string' ? first : (first as { text?: string })?.text,
  );
  try {
    return { result: await run(), statements };
  } finally {
    for (const [target, name, original] of originals.reverse()) target[name] = original;
  }
}

const LIMITS = { csvBytes: 256 * 1024, sharedStringsBytes: 1024 * 1024, storeUploadsPerSecond: 1, storeUploadBurst: 3 };
const VALID_ROW = '01000000;01999999;Capital;0;30000;12,90;0;0;;3;BRA;0';

describe.each(testDatabaseTargets())('work of a refused freight upload on $dialect (D124)', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { config: testConfig({ uploads: LIMITS }) });
  });
  afterAll(() => platform?.close());

  const newStore = async () => (await platform.createSeller()).tenantIds[0] as string;
  const upload = async (store: string, tableId: string, contentType: string | null, payload: string | Buffer | PassThrough) => {
    const request: InjectOptions = {
      method: 'PUT',
      url: tableUrl(store, tableId, { name: tableId }),
      headers: contentType ? { ...admin, 'content-type': contentType } : admin,
      payload,
    };
    const { result, statements } = await uploadStatements(() => platform.app.inject(request));
    return { result, statements, work: { databaseStatements: statements.length } };
  };
  const versionsOf = (store: string) =>
    platform.database.db.selectFrom('freight_table_versions').select('key').where('owner', '=', store).execute();

  it('tenant isolation, D124: an upload refused from its headers (a declared length past csv_bytes, no spreadsheet body) costs no statement', async () => {
    const store = await newStore();
    const tooLong = await upload(store, 'longa', 'text/csv', vtexCsv([VALID_ROW]).padEnd(LIMITS.csvBytes + 1, ' '));
    expect(tooLong.result.statusCode).toBe(413);
    expect(tooLong.result.json().details[0].slug).toBe('UPLOAD_LIMIT_CSV_BYTES');
    expect(tooLong.work.databaseStatements).toBe(0);
    const noBody = await upload(store, 'vazia', null, '');
    expect(noBody.result.statusCode).toBe(415);
    expect(noBody.work.databaseStatements).toBe(0);
  });

  it('tenant isolation, D124: an upload refused by a bound while it is read (a cell past cell_chars, a shared-strings bomb) costs the store lookup, its upload bucket and the table lookup, three statements, and never claims the table', async () => {
    const store = await newStore();
    const cell = await upload(store, 'celula', 'text/csv', vtexCsv([VALID_ROW.replace('Capital', 'x'.repeat(40_000))]));
    expect(cell.result.statusCode).toBe(422);
    expect(cell.result.json().details[0].slug).toBe('UPLOAD_LIMIT_CELL_CHARS');
    expect(cell.work.databaseStatements).toBe(3);

    const bomb = await upload(store, 'bomba', XLSX_MEDIA_TYPE, sharedStringsBomb(20_000, 1000).zip);
    expect(bomb.result.statusCode).toBe(413);
    expect(bomb.result.json().details[0].slug).toMatch(/^UPLOAD_LIMIT_/);
    expect(bomb.work.databaseStatements, bomb.statements.join('\n')).toBe(3);
    expect(bomb.statements.filter((text) => /freight_table_versions|freight_rows|advisory_lock/i.test(text))).toEqual([]);
    // No version row was written and dropped, no COPY opened (PostgreSQL), no lock taken.
    expect(await versionsOf(store)).toEqual([]);
  }, 120_000);

  it("tenant isolation, D124: a store past its upload bucket is refused before its store is looked up: once an upload took the bucket's last one, the refusals cost no statement until the bucket admits again", async () => {
    const store = await newStore();
    for (let i = 0; i < LIMITS.storeUploadBurst; i++) {
      expect((await upload(store, `t${i}`, 'text/csv', vtexCsv([VALID_ROW]))).result.statusCode).toBe(201);
    }
    const first = await upload(store, 'mais', 'text/csv', vtexCsv([VALID_ROW]));
    expect(first.result.statusCode).toBe(429);
    expect(first.work.databaseStatements).toBe(0);
    const next = await upload(store, 'mais', 'text/csv', vtexCsv([VALID_ROW]));
    expect(next.result.statusCode).toBe(429);
    expect(next.result.headers['retry-after']).toBe(first.result.headers['retry-after']);
    expect(next.work.databaseStatements).toBe(0);
    platform.clock.advance(1000 / LIMITS.storeUploadsPerSecond);
    expect((await upload(store, 'mais', 'text/csv', vtexCsv([VALID_ROW]))).result.statusCode).toBe(201);
  });

  it('tenant isolation, D124: while an upload’s body is still arriving it holds no database connection and no claim on the table; they are taken for the write', async () => {
    const store = await newStore();
    const body = new PassThrough();
    const answer = upload(store, 'lenta', 'text/csv', body);
    // More than the request's and the stream's buffers hold (about 70 KB), fewer rows than a batch: all of
    // it is gone from the stream only once the route's reader has taken it, and then it waits for more.
    const rows = distinctRows(CLAIMING_ROWS * 0.75);
    body.write(vtexCsv(rows));
    await pollUntil(
      'the reader to take the rows sent so far',
      () => (body.readableLength === 0 && body.writableLength === 0 ? true : undefined),
      { deadlineMs: 10_000 },
    );
    const pool = platform.database.pgPool;
    if (pool) expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(await versionsOf(store)).toEqual([]);
    body.end(`${VALID_ROW}\r\n`);
    const { result } = await answer;
    expect(result.statusCode, result.body).toBe(201);
    expect(result.json().row_count).toBe(rows.length + 1);
  });
});
