import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { QuoteCallResult } from './quote-caller.js';
import type { QuoteLogWriter } from './quote-log-writer.js';
import type { QuoteMetrics } from './quote-metrics.js';
import type { ShippingTables } from './shipping-tables.js';

/** The one table of the quote log, wherever it is kept (quote-log-store.ts). */
export type QuoteLogTables = Pick<ShippingTables, 'quote_calls'>;

/** Which of the two quotes of a purchase a call was (SPEC-DECISIONS Q6). */
export type QuotePurpose = 'storefront' | 'checkout';

export interface QuoteCallRecord {
  id: string;
  tenant_id: string;
  session_id: string;
  purpose: QuotePurpose;
  outcome: string;
  latency_ms: number;
  http_status: number | null;
  detail: string | null;
  created_at: string;
}

/**
 * SPEC-DECISIONS Q7: every quote call is logged (session id, tenant, latency,
 * outcome) in the database, for the admin list, and counted in /metrics. The
 * row goes through the batched writer (quote-log-writer.ts): readers of the log
 * flush it first, so they see every call that has answered.
 */
export function recordQuoteCall(
  deps: { quoteLog: QuoteLogWriter; clock: Clock; random: Random; metrics: QuoteMetrics },
  call: { tenantId: string; sessionId: string; purpose: QuotePurpose; result: QuoteCallResult },
): QuoteCallRecord {
  const { result } = call;
  deps.metrics.calls.inc({ outcome: result.outcome });
  deps.metrics.latency.observe({ outcome: result.outcome }, result.latencyMs / 1000);
  if (result.outcome === 'timeout') deps.metrics.timeouts.inc();
  const row: QuoteCallRecord = {
    id: deps.random.uuid(),
    tenant_id: call.tenantId,
    session_id: call.sessionId,
    purpose: call.purpose,
    outcome: result.outcome,
    latency_ms: result.latencyMs,
    http_status: result.httpStatus,
    detail: result.detail,
    created_at: deps.clock.now().toISOString(),
  };
  deps.quoteLog.append(row);
  return row;
}

/**
 * The one way rows enter the log, in every store and on the writer thread
 * (which runs this statement compiled): a row whose id is already there is
 * left as it is, so a batch written twice is logged once.
 */
export function insertQuoteCalls(db: Kysely<QuoteLogTables>, rows: readonly QuoteLogTables['quote_calls'][]) {
  return db
    .insertInto('quote_calls')
    .values([...rows])
    .onConflict((oc) => oc.column('id').doNothing());
}

/** The admin API's view of a logged call. */
export function presentQuoteCall(row: QuoteCallRecord) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    session_id: row.session_id,
    purpose: row.purpose,
    outcome: row.outcome,
    latency_ms: row.latency_ms,
    http_status: row.http_status,
    detail: row.detail,
    created_at: row.created_at,
  };
}
