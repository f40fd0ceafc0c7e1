import { QUOTE_OUTCOMES } from '@feira/contract';
import { defineListResource } from '../../lists/list-resource.js';
import { presentQuoteCall, type QuoteCallRecord } from './quote-call-rows.js';
import type { QuoteLogWriter } from './quote-log-writer.js';

/**
 * The quote calls of these stores, for the list engine to page through. The log
 * is written in batches, so it is flushed first: every call that has answered is
 * listed. No store, no rows.
 */
export async function quoteCallsOf(quoteLog: Pick<QuoteLogWriter, 'flush' | 'store'>, tenantIds: readonly string[]) {
  await quoteLog.flush();
  const log = await quoteLog.store.reader();
  return log
    .selectFrom('quote_calls')
    .selectAll()
    .where('tenant_id', 'in', tenantIds.length > 0 ? tenantIds : ['\u0001none']);
}

/**
 * The quote log as a list (spec-notes Q7 with the list conventions L1–L9).
 * It grows with every quote (high frequency expected, spec "Limits"), so it is
 * a massive collection: offset ≤ 5000, no total, cursor pagination for more.
 */
export const quoteCallList = defineListResource<QuoteCallRecord, ReturnType<typeof presentQuoteCall>>({
  name: 'admin.quote-calls',
  fields: {
    id: { column: 'id', type: 'id' },
    session_id: { column: 'session_id', type: 'id' },
    purpose: { column: 'purpose', type: 'enum', values: ['storefront', 'checkout', 'preview', 'test'] },
    outcome: { column: 'outcome', type: 'enum', values: QUOTE_OUTCOMES },
    latency_ms: { column: 'latency_ms', type: 'number' },
    http_status: { column: 'http_status', type: 'integer', nullable: true },
    created_at: { column: 'created_at', type: 'datetime' },
  },
  sorts: ['created_at', 'latency_ms'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  massive: true,
  present: presentQuoteCall,
});
