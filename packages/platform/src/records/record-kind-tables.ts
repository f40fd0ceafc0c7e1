import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { DialectName } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import type { Schema } from '../storage/schema.js';
import type { KindColumnType } from './record-kind.js';
import type { RecordKindRegistry } from './record-kinds.js';

/**
 * The one step that stores a kind declared as data (D90): for each registered
 * kind with `storage` whose table is missing, the table (key columns, the
 * kind's columns, the tenant foreign key, its unique sets) and one
 * `(tenant_id, …sort columns, id)` index per list index. Additive only: it
 * never alters or drops a table, so a kind that changes its columns later
 * writes a numbered migration like any other table. The platform's own kinds
 * declare no storage: their tables stay in their numbered migrations.
 * Runs after the numbered migrations, under their lock (storage/migrate.ts);
 * `if not exists` makes a second run, or a second process, a no-op.
 */
export async function createRecordKindTables(
  db: Kysely<Schema>,
  dialect: DialectName,
  registry: RecordKindRegistry,
): Promise<void> {
  const declared = registry.kinds.filter((kind) => kind.storage !== undefined);
  if (declared.length === 0) return;
  // As in 0003: text compares byte by byte on both dialects, so a sort, its cursor and its index agree.
  const text = dialectAdapter(dialect).byteOrderText;
  const typeOf = (type: KindColumnType) => (type === 'text' ? text : sql.raw(type));
  for (const kind of declared) {
    const storage = kind.storage;
    if (!storage) continue;
    // Typed as any table of any columns: the columns come from the kind's declaration, not from Schema.
    let table: CreateTableBuilder<string, string> = db.schema
      .createTable(kind.table)
      .ifNotExists()
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'));
    for (const [name, column] of Object.entries(storage.columns) as Array<
      [string, { type: KindColumnType; nullable?: boolean }]
    >) {
      table = table.addColumn(name, typeOf(column.type), (c) => (column.nullable ? c : c.notNull()));
    }
    table = table.addColumn('created_at', text, (c) => c.notNull()).addColumn('updated_at', text, (c) => c.notNull());
    for (const columns of storage.unique ?? []) {
      table = table.addUniqueConstraint(`${kind.table}_tenant_${columns.join('_')}_unique`, ['tenant_id', ...columns]);
    }
    await table.execute();
    for (const columns of storage.listIndexes) {
      await db.schema
        .createIndex(`${kind.table}_tenant_${[...columns, 'id'].join('_')}_idx`)
        .ifNotExists()
        .on(kind.table)
        .columns(['tenant_id', ...columns, 'id'])
        .execute();
    }
  }
}
