import type { MigrationFactory } from './helpers.js';

/**
 * Security hardening: the shared attempt counters of the login and
 * token endpoints, server-side login sessions, and the count of uses of a
 * refresh token within its grace (spec-notes I5).
 */
export const security: MigrationFactory = () => ({
  async up(db) {
    // One row per throttled key (`login:<name>`, `login-address:<ip>`, `client:<id>`, …), shared by every process.
    await db.schema
      .createTable('auth_throttle')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_started_at', 'text', (c) => c.notNull())
      .addColumn('reserved', 'integer', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('blocked_until', 'text')
      .execute();
    // Replaced by auth_throttle: it recorded failures only after the password check, so parallel guesses all got through.
    await db.schema.dropTable('login_attempts').execute();
    await db.schema
      .createTable('login_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('seller_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('ended_reason', 'text')
      .execute();
    await db.schema.createIndex('login_sessions_seller_idx').on('login_sessions').column('seller_id').execute();
    await db.schema
      .alterTable('refresh_tokens')
      .addColumn('use_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
