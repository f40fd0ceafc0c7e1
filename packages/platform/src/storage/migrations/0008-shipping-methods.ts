import { type MigrationFactory, serialPrimaryKey } from './helpers.js';
import { quoteCallsTable } from './quote-calls-table.js';

/**
 * The other quote methods (spec-notes Q8, Q9): freight tables (the store's
 * own and the marketplace delivery service's), operator-registered freight
 * gateways, several methods and backup rates per store, and `fallback_used` in
 * the quote log.
 */
export const shippingMethods: MigrationFactory = (dialect) => ({
  async up(db) {
    const key = serialPrimaryKey(dialect);
    // One row per import of a table; rows point at it, so a replace writes a new
    // version beside the one quotes read and switches over in one UPDATE.
    await db.schema
      .createTable('freight_table_versions')
      .addColumn('key', key.type, key.build)
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('table_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('freight_tables')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('table_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('distribution_center_id', 'text')
      .addColumn('cubic_weight_factor', 'double precision')
      .addColumn('version_key', 'integer', (c) => c.notNull())
      .addColumn('previous_version_key', 'integer')
      .addColumn('row_count', 'integer', (c) => c.notNull())
      .addColumn('weight_bands', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('freight_tables_pk', ['owner', 'table_id'])
      .execute();
    await db.schema
      .createTable('freight_rows')
      .addColumn('version_key', 'integer', (c) => c.notNull())
      .addColumn('line_no', 'integer', (c) => c.notNull())
      .addColumn('zip_start', 'integer', (c) => c.notNull())
      .addColumn('zip_end', 'integer', (c) => c.notNull())
      .addColumn('weight_start', 'double precision', (c) => c.notNull())
      .addColumn('weight_end', 'double precision', (c) => c.notNull())
      .addColumn('absolute_money_cost', 'double precision', (c) => c.notNull())
      .addColumn('price_percent', 'double precision', (c) => c.notNull())
      .addColumn('price_by_extra_weight', 'double precision', (c) => c.notNull())
      .addColumn('max_volume', 'double precision')
      .addColumn('time_cost', 'text', (c) => c.notNull())
      .addColumn('delivery_days', 'integer', (c) => c.notNull())
      .addColumn('minimum_value_insurance', 'double precision', (c) => c.notNull())
      .addColumn('polygon_name', 'text', (c) => c.notNull())
      .addColumn('country', 'text', (c) => c.notNull())
      .execute();
    // The lookup (freight-lookup.ts): within one weight band the zip ranges are
    // disjoint, so the row holding a zipcode is the one with the greatest
    // zip_start ≤ zipcode: one backwards index probe per band, on both dialects.
    await db.schema
      .createIndex('freight_rows_lookup_idx')
      .on('freight_rows')
      .columns(['version_key', 'weight_start', 'weight_end', 'zip_start'])
      .execute();
    // The CSV download reads a version in upload order, a page at a time.
    await db.schema.createIndex('freight_rows_line_idx').on('freight_rows').columns(['version_key', 'line_no']).execute();

    await db.schema
      .createTable('shipping_gateways')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    // NULL methods: the row predates this migration and means its `method` alone.
    await db.schema.alterTable('shipping_settings').addColumn('methods', 'text').execute();
    await db.schema.alterTable('shipping_settings').addColumn('fallback', 'text').execute();
    await db.schema.alterTable('shipping_settings').addColumn('gateway_id', 'text').execute();
    await db.schema.alterTable('shipping_settings').addColumn('gateway_credential', 'text').execute();

    await quoteCallsTable.addFallbackUsed(db);
  },
});
