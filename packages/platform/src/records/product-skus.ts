import type { Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';

/** A product's stock by SKU in one store, or undefined when the store has no such product (the demo seller's quote reads it). */
export async function productStock(db: Kysely<Schema>, tenantId: string, sku: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('products')
    .select('stock')
    .where('tenant_id', '=', tenantId)
    .where('sku', '=', sku)
    .executeTakeFirst();
  return row ? Number(row.stock) : undefined;
}

/** The SKUs of a store's first products, oldest first, at most `limit` (the console's "Test my endpoint" asks quotes for them). */
export async function firstProductSkus(db: Kysely<Schema>, tenantId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('products')
    .select('sku')
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.sku);
}
