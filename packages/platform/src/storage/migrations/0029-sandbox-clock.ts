import type { MigrationFactory } from './helpers.js';

/** The sandbox clock's offset, shared by every process on the database (storage/sandbox-clock.ts). */
export const sandboxClock: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('sandbox_clock')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('offset_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
});
