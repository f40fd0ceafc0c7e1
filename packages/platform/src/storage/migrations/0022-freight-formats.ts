import type { MigrationFactory } from './helpers.js';

/**
 * Freight tables remember how they were uploaded (D62): the format (a CSV or
 * an .xlsx workbook), so the download comes back in it, and the decimal mark
 * of a CSV, so `12,90` downloads as `12,90`. NULL on older rows: a CSV with a
 * decimal point, as they were downloaded before.
 */
export const freightFormats: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('freight_tables').addColumn('source_format', 'text').execute();
    await db.schema.alterTable('freight_tables').addColumn('decimal_mark', 'text').execute();
  },
});
