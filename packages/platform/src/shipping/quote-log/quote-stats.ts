import { QUOTE_TIMEOUT_MS } from '@feira/contract';
import type { Kysely } from 'kysely';
import type { QuoteLogTables } from './quote-call-rows.js';

/** The windows the quote chart offers, and the bucket each is drawn in. */
export const QUOTE_WINDOWS = {
  '1h': { ms: 3_600_000, bucketMs: 60_000 },
  '24h': { ms: 86_400_000, bucketMs: 1_800_000 },
} as const;
export type QuoteWindow = keyof typeof QUOTE_WINDOWS;
/** The chart reads at most this many of the window's newest calls (a busy store makes millions a day). */
const QUOTE_STATS_ROW_LIMIT = 20_000;

interface QuoteStatsBucket {
  start: string;
  calls: number;
  ok: number;
  /** Every call that did not quote: business answers and endpoint failures. */
  failed: number;
  /** Of `failed`, the seller's business answers (invalid_zipcode, delivery_not_available, out_of_stock): the endpoint worked (D83). */
  business: number;
  p50Ms: number | null;
  p99Ms: number | null;
}
export interface QuoteStats {
  window: QuoteWindow;
  bucketMs: number;
  deadlineMs: number;
  /** True when the window held more calls than the chart reads (then the oldest buckets are partial). */
  truncated: boolean;
  buckets: QuoteStatsBucket[];
}

/** The seller's own answers that a shopper is told about: not a fault of the endpoint. */
const BUSINESS_OUTCOMES: ReadonlySet<string> = new Set(['invalid_zipcode', 'delivery_not_available', 'out_of_stock']);

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * Latency p50/p99 and outcomes of a store's quote calls, bucketed over the
 * window (the console's chart), from the quote log itself: the newest
 * {@link QUOTE_STATS_ROW_LIMIT} calls through the (tenant_id, created_at) index.
 */
export async function quoteStats(
  log: Kysely<QuoteLogTables>,
  tenantId: string,
  now: Date,
  window: QuoteWindow,
): Promise<QuoteStats> {
  const { ms, bucketMs } = QUOTE_WINDOWS[window];
  // The last bucket is the one holding `now` (a call made this very millisecond counts).
  const end = Math.floor(now.getTime() / bucketMs) * bucketMs + bucketMs;
  const start = end - ms;
  const rows = await log
    .selectFrom('quote_calls')
    .select(['created_at', 'latency_ms', 'outcome'])
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', new Date(start).toISOString())
    .orderBy('created_at', 'desc')
    .limit(QUOTE_STATS_ROW_LIMIT + 1)
    .execute();
  const truncated = rows.length > QUOTE_STATS_ROW_LIMIT;
  const count = ms / bucketMs;
  const latencies: number[][] = Array.from({ length: count }, () => []);
  const ok = new Array<number>(count).fill(0);
  const business = new Array<number>(count).fill(0);
  for (const row of rows.slice(0, QUOTE_STATS_ROW_LIMIT)) {
    const index = Math.floor((Date.parse(row.created_at) - start) / bucketMs);
    if (index < 0 || index >= count) continue;
    latencies[index]?.push(Number(row.latency_ms));
    if (row.outcome === 'ok') ok[index] = (ok[index] ?? 0) + 1;
    else if (BUSINESS_OUTCOMES.has(row.outcome)) business[index] = (business[index] ?? 0) + 1;
  }
  return {
    window,
    bucketMs,
    deadlineMs: QUOTE_TIMEOUT_MS,
    truncated,
    buckets: latencies.map((values, i) => {
      const sorted = values.sort((a, b) => a - b);
      return {
        start: new Date(start + i * bucketMs).toISOString(),
        calls: sorted.length,
        ok: ok[i] ?? 0,
        failed: sorted.length - (ok[i] ?? 0),
        business: business[i] ?? 0,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
      };
    }),
  };
}

export const isQuoteWindow = (value: unknown): value is QuoteWindow =>
  typeof value === 'string' && Object.hasOwn(QUOTE_WINDOWS, value);
