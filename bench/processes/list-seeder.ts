// Seeds one tenant's orders with the platform's own seeder (seedRecords), in a
// process of its own so the platform's peak RSS is not the seeder's.
import { randomUUID } from 'node:crypto';
import type * as PlatformModule from '@feira/platform';
import { sql } from 'kysely';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { insertBenchTenant } from './fixtures/bench-tenant.js';

interface Options {
  databaseUrl: string;
  searchPath?: string;
  /** A file URL of another build's `index.js` (bench/tools/ab.ts). */
  platformModule?: string;
}

type Seeder = (
  database: PlatformModule.Database,
  tenantId: string,
  counts: { orders: number },
  deps: { clock: PlatformModule.Clock; random: PlatformModule.Random; onProgress?(written: number, total: number): void },
) => Promise<{ rows: number; elapsedMs: number }>;

const options = childOptions<Options>();
const platform: typeof PlatformModule = options.platformModule
  ? await import(options.platformModule)
  : await import('@feira/platform');
const database = await platform.openDatabase(options.databaseUrl, options.searchPath ? { searchPath: options.searchPath } : {});
await platform.migrateToLatest(database);

serveChild(
  {},
  {
    async seedOrders(args) {
      const { orders } = args as { orders: number };
      const seedRecords = (platform as unknown as { seedRecords?: Seeder }).seedRecords;
      if (!seedRecords) throw new Error('@feira/platform does not export seedRecords');
      const { tenantId } = await insertBenchTenant(
        database,
        { sellerId: randomUUID(), tenantId: randomUUID() },
        new Date().toISOString(),
      );
      const result = await seedRecords(
        database,
        tenantId,
        { orders },
        { clock: platform.systemClock, random: platform.cryptoRandom },
      );
      if (database.dialect === 'postgres') await sql`analyze orders`.execute(database.db);
      return { tenantId, rows: result.rows, elapsedMs: result.elapsedMs };
    },
  },
  () => database.close(),
);
