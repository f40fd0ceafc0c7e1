import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/** A migration file exports one of these: the dialect decides the few column types that differ. */
export type MigrationFactory = (dialect: DialectName) => {
  up(db: Kysely<unknown>): Promise<void>;
  down?(db: Kysely<unknown>): Promise<void>;
};

/** Auto-incrementing 64-bit key: `integer primary key autoincrement` on SQLite, `bigserial` on PostgreSQL. */
export function serialPrimaryKey(dialect: DialectName) {
  return {
    type: dialect === 'sqlite' ? ('integer' as const) : ('bigserial' as const),
    build: (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()),
  };
}
