import type { MigrationFactory } from './helpers.js';

/** Operator console sessions, kept server-side like the sellers' so sign-out ends a copied cookie too. */
export const operatorSessions: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('operator_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .execute();
  },
});
