import type { Kysely, Selectable } from 'kysely';
import type { ShippingTables } from '../shipping-tables.js';

/** The one table of the quote log, wherever it is kept (quote-log-store.ts). */
export type QuoteLogTables = Pick<ShippingTables, 'quote_calls'>;

/** Which of the two quotes of a purchase a call was (spec-notes Q6), or a seller's or operator's preview (D61), or a call of Test my endpoint (D83). */
export type QuotePurpose = 'storefront' | 'checkout' | 'preview' | 'test';

export interface QuoteCallRecord {
  id: string;
  tenant_id: string;
  session_id: string;
  purpose: QuotePurpose;
  outcome: string;
  latency_ms: number;
  http_status: number | null;
  detail: string | null;
  /** 1 when this call failed and the shopper got freight-table options instead (spec-notes Q8). */
  fallback_used: number;
  /** The gateway kind of a `gateway` method's call (D57), else null. */
  gateway_kind: string | null;
  created_at: string;
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

/** The calls logged since `sinceIso`, newest first, at most `limit`: when and how long (the operator console's latency chart). */
export function quoteLatenciesSince(
  log: Kysely<QuoteLogTables>,
  sinceIso: string,
  limit: number,
): Promise<Array<{ created_at: string; latency_ms: number }>> {
  return log
    .selectFrom('quote_calls')
    .select(['created_at', 'latency_ms'])
    .where('created_at', '>=', sinceIso)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** A store's newest logged calls since `sinceIso`, at most `limit`, all or only those that answered ok or not (the console's quote log). */
export function newestStoreQuoteCalls(
  log: Kysely<QuoteLogTables>,
  query: { tenantId: string; sinceIso: string; outcome: 'ok' | 'failed' | null; limit: number },
): Promise<Array<Selectable<QuoteLogTables['quote_calls']>>> {
  let calls = log
    .selectFrom('quote_calls')
    .selectAll()
    .where('tenant_id', '=', query.tenantId)
    .where('created_at', '>=', query.sinceIso)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit);
  if (query.outcome === 'ok') calls = calls.where('outcome', '=', 'ok');
  if (query.outcome === 'failed') calls = calls.where('outcome', '!=', 'ok');
  return calls.execute();
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
    fallback_used: row.fallback_used === 1,
    gateway_kind: row.gateway_kind ?? null,
    created_at: row.created_at,
  };
}
