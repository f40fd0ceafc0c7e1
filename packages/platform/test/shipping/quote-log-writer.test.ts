// The quote log is written in batches (quote-log-writer.ts); spec-notes Q7
// still holds: every call ends up in the log, in order, and nothing buffered is
// lost when the app closes or when one row cannot be written.
import { describe, expect, it } from 'vitest';
import { quoteLogInDatabase } from '../../src/shipping/quote-log/quote-log-store.js';
import { QuoteLogWriter } from '../../src/shipping/quote-log/quote-log-writer.js';
import { createTestPlatform, pollUntil, type TestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import {
  answerWith,
  logged,
  option,
  quoteCallsAfterRestart,
  quoteCallRow as row,
  storefrontQuote,
  storeSellingVia,
} from './shipping-kit.js';
import { startTestSeller } from './test-seller.js';

/** Never fires during a test: only a full batch or an explicit flush writes. */
const NO_TIMER_MS = 3_600_000;

describe.each(testDatabaseTargets())('batched quote log on $dialect', (target) => {
  it('spec-notes Q7: buffered rows are written by a flush, all of them and in order; a full batch goes without one', async () => {
    const platform = await createTestPlatform(target);
    try {
      const tenantId = (await platform.createSeller()).tenantIds[0] as string;
      // The store the platform uses: on SQLite, the log's own file and its writer thread.
      const { store } = platform.app.shipping.quoteLog;
      const writer = new QuoteLogWriter(store, { maxRows: 3, maxDelayMs: NO_TIMER_MS });
      writer.append(row(tenantId, 1));
      writer.append(row(tenantId, 2));
      expect(await logged(store, tenantId)).toEqual([]);
      await writer.flush();
      expect(await logged(store, tenantId)).toEqual([1, 2]);
      for (let n = 3; n <= 5; n++) writer.append(row(tenantId, n));
      expect(writer.pendingRows).toBe(0);
      await pollUntil('the full batch to be written without a flush', async () =>
        (await logged(store, tenantId)).length === 5 ? true : undefined,
      );
      expect(await logged(store, tenantId)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await platform.close();
    }
  });

  it.each([
    [
      'a row that cannot be written (its tenant is gone) is reported and costs the others nothing',
      // In the platform's database, where the tenant key holds (PostgreSQL; SQLite keeps the log in a file of its own).
      (platform: TestPlatform) => quoteLogInDatabase(platform.database),
      (_tenantId: string) => row('99999999-0000-4000-8000-000000000000', 2),
    ],
    [
      "a row the platform's own store refuses (a NULL where the log needs a value) is reported and costs the others nothing, on SQLite's writer thread too",
      // The store the platform uses: on SQLite the log's own file, whose errors come back from its thread.
      (platform: TestPlatform) => platform.app.shipping.quoteLog.store,
      (tenantId: string) => ({ ...row(tenantId, 2), outcome: null as unknown as string }),
    ],
  ] as const)('spec-notes Q7: %s', async (_case, storeOf, brokenRow) => {
    const platform = await createTestPlatform(target);
    try {
      const tenantId = (await platform.createSeller()).tenantIds[0] as string;
      const store = storeOf(platform);
      const failed: string[] = [];
      const writer = new QuoteLogWriter(store, { maxRows: 10, maxDelayMs: NO_TIMER_MS });
      writer.onError((_error, rows) => failed.push(...rows.map((r) => r.id)));
      const broken = brokenRow(tenantId);
      writer.append(row(tenantId, 1));
      writer.append(broken);
      writer.append(row(tenantId, 3));
      await writer.flush();
      expect(await logged(store, tenantId)).toEqual([1, 3]);
      expect(failed).toEqual([broken.id]);
    } finally {
      await platform.close();
    }
  });

  it('spec-notes Q7: a batch the store fails for a reason that is not its rows (no connection) is reported once, whole, not retried row by row', async () => {
    const platform = await createTestPlatform(target);
    try {
      const tenantId = (await platform.createSeller()).tenantIds[0] as string;
      const { store } = platform.app.shipping.quoteLog;
      let writes = 0;
      const unreachable = {
        ...store,
        write: async () => {
          writes += 1;
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        },
      };
      const reported: number[] = [];
      const writer = new QuoteLogWriter(unreachable, { maxRows: 10, maxDelayMs: NO_TIMER_MS });
      writer.onError((_error, rows) => reported.push(rows.length));
      for (let n = 1; n <= 3; n++) writer.append(row(tenantId, n));
      await writer.flush();
      expect(writes).toBe(1);
      expect(reported).toEqual([3]);
    } finally {
      await platform.close();
    }
  });

  it('spec-notes Q7: a quote still buffered when the app closes is in the log once it has closed', async () => {
    const database = await target.open();
    // The app's writer with a timer that never fires: only the close can write the row.
    const platform = await createTestPlatform(
      { ...target, open: async () => database },
      { outboundCa: testTls.ca, quoteLogBatch: { maxDelayMs: NO_TIMER_MS } },
    );
    const seller = await startTestSeller({ tls: false, behave: () => ({ status: 200, json: answerWith([option()]) }) });
    try {
      const tenantId = await storeSellingVia(platform, `${seller.url}/quote`);
      const quote = await storefrontQuote(platform, tenantId);
      expect(quote.json().available).toBe(true);
      expect(await logged(platform.app.shipping.quoteLog.store, tenantId)).toEqual([]);
      await platform.app.close();
      // Read back through a store opened afresh: on SQLite, the log's own file, reopened.
      expect(await quoteCallsAfterRestart(database, tenantId)).toEqual([
        expect.objectContaining({ session_id: quote.json().session_id, outcome: 'ok' }),
      ]);
    } finally {
      await seller.close();
      await database.close();
    }
  });
});
