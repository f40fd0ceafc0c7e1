import type { Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';

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
