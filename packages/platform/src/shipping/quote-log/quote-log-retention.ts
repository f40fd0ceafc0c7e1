import { deleteBeforeBatch, type RetentionRule } from '../../storage/retention-sweeper.js';
import type { QuoteLogStore } from './quote-log-store.js';

/**
 * Quote calls go `quoteCallDays` after they were made, wherever the log is
 * kept (quote-log-store.ts): the platform's database, or on SQLite the log's
 * own file, whose reading connection deletes them (one short batch at a time,
 * beside the writer thread's short transactions).
 */
export function quoteCallRetention(store: QuoteLogStore, policy: { quoteCallDays: number }): RetentionRule[] {
  if (policy.quoteCallDays === 0) return [];
  return [
    {
      name: 'quote_calls',
      sweep: async ({ now, limit }) =>
        deleteBeforeBatch(await store.reader(), {
          table: 'quote_calls',
          key: 'id',
          time: 'created_at',
          cutoffIso: new Date(now.getTime() - policy.quoteCallDays * 24 * 3_600_000).toISOString(),
          limit,
        }),
    },
  ];
}
