import type { ProductInput } from '@feira/contract';
import type { PlatformContext } from '../http/platform-context.js';
import { insertRecord, productKind, RECORD_KINDS, type SeedCounts, seedRecords } from '../records/index.js';

/**
 * Products with fixed SKUs in every demo store, beside the generated ones, so
 * README examples and `feira quote-check`'s defaults can name a SKU the demo
 * seller serves (centimetres and grams, as the catalogue keeps them).
 */
export const DEMO_PRODUCTS: ProductInput[] = [
  {
    sku: 'CAM-AZUL-M',
    title: 'Camiseta azul M',
    price: 19.99,
    stock: 50,
    dimensions: { depth: 12, height: 5, width: 30, weight: 250 },
  },
  {
    sku: 'CANECA-100',
    title: 'Caneca 100% cerâmica',
    price: 34.9,
    stock: 20,
    dimensions: { depth: 10, height: 12, width: 10, weight: 400 },
  },
];

/** What each demo store gets: enough for every list convention to show (several pages, filters that select). */
export const DEMO_RECORD_COUNTS = Object.fromEntries(
  RECORD_KINDS.map((kind) => [kind.table, kind.demoCount]),
) as Required<SeedCounts>;

/**
 * The records capability's demo seeder, plugged into `seedDemo` (admin/demo-seed.ts)
 * through `startPlatform({ seedRecords: seedDemoRecords })`: fills every demo
 * store with generated orders, products, tickets and transactions.
 */
export async function seedDemoRecords(platform: PlatformContext, tenants: ReadonlyArray<{ id: string }>): Promise<void> {
  for (const tenant of tenants) {
    await seedRecords(platform.database, tenant.id, DEMO_RECORD_COUNTS, { clock: platform.clock, random: platform.random });
    for (const product of DEMO_PRODUCTS) {
      await insertRecord(productKind, platform.database.db, tenant.id, product, platform);
    }
  }
}
