import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * Signing keys that rotate while the platform runs (identity/signing-keys.ts): a new key is published in
 * the JWKS at `created_at` and signs from `signs_from`, once every process has had time to load it. A key
 * made before this migration signed from its creation, so that is its `signs_from`. `retired_at` is no
 * longer written: when a key leaves the JWKS follows from its successor's `signs_from` and the tokens'
 * lifetime.
 */
export const signingKeyStates: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('signing_keys').addColumn('signs_from', 'text').execute();
    await sql`update signing_keys set signs_from = created_at`.execute(db);
  },
});
