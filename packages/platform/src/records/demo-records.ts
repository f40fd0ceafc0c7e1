import type { PlatformContext } from '../app.js';
import { type SeedCounts, seedRecords } from './seed-records.js';

/** What each demo store gets: enough for every list convention to show (several pages, filters that select). */
export const DEMO_RECORD_COUNTS: Required<SeedCounts> = { products: 60, orders: 250, tickets: 40, transactions: 180 };

/**
 * The records capability's demo seeder, plugged into `seedDemo` (admin/demo-seed.ts)
 * through `startPlatform({ seedRecords: seedDemoRecords })`: fills every demo
 * store with generated orders, products, tickets and transactions.
 */
export async function seedDemoRecords(platform: PlatformContext, tenants: ReadonlyArray<{ id: string }>): Promise<void> {
  for (const tenant of tenants) {
    await seedRecords(platform.database, tenant.id, DEMO_RECORD_COUNTS, { clock: platform.clock, random: platform.random });
  }
}
