import type { Kysely } from 'kysely';
import { deleteBeforeBatch, type RetentionRule } from '../storage/retention-sweeper.js';
import type { Schema } from '../storage/schema.js';

/** Operator console sessions go `expiredHours` after they expired (an ended one expires too, and is refused either way). */
export function operatorSessionRetention(db: Kysely<Schema>, policy: { expiredHours: number }): RetentionRule[] {
  if (policy.expiredHours === 0) return [];
  return [
    {
      name: 'operator_sessions',
      sweep: ({ now, limit }) =>
        deleteBeforeBatch(db, {
          table: 'operator_sessions',
          key: 'id_hash',
          time: 'expires_at',
          cutoffIso: new Date(now.getTime() - policy.expiredHours * 3_600_000).toISOString(),
          limit,
        }),
    },
  ];
}
