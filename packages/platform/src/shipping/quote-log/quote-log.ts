import type { Clock } from '../../core/clock.js';
import type { Random } from '../../core/random.js';
import { storableText } from '../../core/storable-text.js';
import type { Database } from '../../storage/database.js';
import type { QuoteCallResult } from '../quote-caller.js';
import type { QuoteMetrics } from '../quote-metrics.js';
import type { QuoteCallRecord, QuotePurpose } from './quote-call-rows.js';
import { openQuoteLogFile, quoteLogFileOf } from './quote-log-file.js';
import { type QuoteLogStore, quoteLogInDatabase } from './quote-log-store.js';
import type { QuoteLogWriter } from './quote-log-writer.js';

/**
 * spec-notes Q7: every quote call is logged (session id, tenant, latency,
 * outcome) in the database, for the admin list, and counted in /metrics. The
 * row goes through the batched writer (quote-log-writer.ts): readers of the log
 * flush it first, so they see every call that has answered.
 */
export function recordQuoteCall(
  deps: { quoteLog: QuoteLogWriter; clock: Clock; random: Random; metrics: QuoteMetrics },
  call: { tenantId: string; sessionId: string; purpose: QuotePurpose; result: QuoteCallResult; fallbackUsed?: boolean },
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
    // The seller's words can reach it (its error message, a value it sent that broke a rule).
    detail: result.detail === null ? null : storableText(result.detail),
    fallback_used: call.fallbackUsed ? 1 : 0,
    gateway_kind: result.gatewayKind ?? null,
    created_at: deps.clock.now().toISOString(),
  };
  deps.quoteLog.append(row);
  return row;
}

/**
 * The store the platform uses for `database`. A SQLite file keeps the log in
 * a file of its own beside it, written on a worker thread (quote-log-file.ts
 * says why); the file is opened on first use. PostgreSQL commits off the event
 * loop already, so there the log stays in the database.
 */
export function quoteLogStoreFor(database: Database): QuoteLogStore {
  if (!database.sqliteFile) return quoteLogInDatabase(database);
  return openQuoteLogFile(database, quoteLogFileOf(database.sqliteFile));
}
