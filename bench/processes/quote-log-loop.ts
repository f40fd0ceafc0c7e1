// The quote log written at a steady rate, alone in this process, with the
// event loop's delay recorded meanwhile: how long a request arriving at any
// moment would have waited for the thread. The log is kept either in the
// platform's database (the main thread commits it, and runs SQLite's automatic
// checkpoints) or in its own file written by a worker thread, as the platform
// does on SQLite (shipping/quote-log-file.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  migrateToLatest,
  openDatabase,
  type QuoteCallRecord,
  QuoteLogWriter,
  quoteLogInDatabase,
  quoteLogStoreFor,
} from '@feira/platform';
import { childOptions, serveChild } from '../lib/child-protocol.js';

export interface QuoteLogLoopOptions {
  /** Where each run's database folder is made (and removed). */
  scratchDir: string;
}

export interface QuoteLogLoopRun {
  store: 'platform-database' | 'own-file';
  ratePerSecond: number;
  durationMs: number;
}

export interface QuoteLogLoopResult {
  rows: number;
  /** Event-loop delay percentiles and maximum, in ms. */
  delayMs: { p50: number; p99: number; p999: number; max: number };
}

async function run({ store: kind, ratePerSecond, durationMs }: QuoteLogLoopRun, scratchDir: string): Promise<QuoteLogLoopResult> {
  const dir = mkdtempSync(join(scratchDir, 'quote-log-loop-'));
  const database = await openDatabase(`sqlite:${join(dir, 'feira.db')}`);
  try {
    await migrateToLatest(database);
    // A tenant for the rows: in the platform's database, the log's tenant key holds.
    const now = new Date().toISOString();
    const tenantId = randomUUID();
    await database.db
      .insertInto('sellers')
      .values({ id: 'seller', name: 'Seller', login: 'seller', password_hash: '-', created_at: now })
      .execute();
    await database.db
      .insertInto('tenants')
      .values({ id: tenantId, seller_id: 'seller', name: 'Store', created_at: now })
      .execute();
    const store = kind === 'own-file' ? quoteLogStoreFor(database) : quoteLogInDatabase(database);
    await store.open();
    const writer = new QuoteLogWriter(store);
    const row = (): QuoteCallRecord => ({
      id: randomUUID(),
      tenant_id: tenantId,
      session_id: randomUUID(),
      purpose: 'storefront',
      outcome: 'ok',
      latency_ms: 1.25,
      http_status: 200,
      detail: null,
      fallback_used: 0,
      gateway_kind: null,
      created_at: new Date().toISOString(),
    });
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let rows = 0;
    const start = performance.now();
    delay.enable();
    await new Promise<void>((done) => {
      // Every millisecond, the rows the clock says are due, the way quotes arrive (the thread idles between).
      const timer = setInterval(() => {
        const elapsedMs = performance.now() - start;
        const due = Math.floor((Math.min(elapsedMs, durationMs) * ratePerSecond) / 1000);
        for (; rows < due; rows += 1) writer.append(row());
        if (elapsedMs >= durationMs) {
          clearInterval(timer);
          done();
        }
      }, 1);
    });
    delay.disable();
    await writer.close();
    const ms = (ns: number) => ns / 1e6;
    return {
      rows,
      delayMs: {
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        p999: ms(delay.percentile(99.9)),
        max: ms(delay.max),
      },
    };
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const options = childOptions<QuoteLogLoopOptions>();
serveChild({}, { run: (args) => run(args as QuoteLogLoopRun, options.scratchDir) });
