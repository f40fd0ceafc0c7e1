import { addRedirectUri, findClientById } from '../accounts/index.js';
import type { PlatformContext } from '../http/platform-context.js';
import { readDemoCredentials, writeDemoCredentials } from './demo-credentials-file.js';
import {
  DEMO_CALLBACK_PATH,
  DEMO_CLI_REDIRECT_URI,
  type DemoCredentials,
  type DemoRecordsSeeder,
  isEmptyForDemo,
  seedDemo,
} from './demo-seed.js';
import { catalogueStock, configureDemoSellerShipping, type DemoSeller, startDemoSeller } from './demo-seller.js';

/** What `feira start` asks of the demo. */
export interface SandboxDemoOptions {
  /** `demo` plants the demo seller and client into an empty database. */
  seed: 'demo' | 'none';
  /** Data folder: where the demo credentials are kept between starts. */
  dataDir: string;
  /** Seeder of the demo stores' records; default `seedDemoRecords` (demo/demo-records.ts). */
  seedRecords?: DemoRecordsSeeder;
}

/**
 * The demo of this database: planted now into an empty one (its credentials
 * written to the data folder, since the client secret is known only at
 * creation), or the one an earlier start planted, read back from the data
 * folder if it belongs to this database. Undefined when there is none.
 */
export async function plantOrRecallDemo(
  platform: PlatformContext,
  options: SandboxDemoOptions,
): Promise<{ demo: DemoCredentials | undefined; seededNow: boolean }> {
  const database = platform.database.displayUrl;
  if (options.seed === 'demo' && (await isEmptyForDemo(platform))) {
    const demo = await seedDemo(platform, options.seedRecords ? { seedRecords: options.seedRecords } : {});
    writeDemoCredentials(options.dataDir, demo, database);
    return { demo, seededNow: true };
  }
  // Each database's demo is kept apart in the data folder (D70): another database started here meanwhile took nothing of it.
  const kept = readDemoCredentials(options.dataDir, database);
  if (!kept || !(await findClientById(platform.database.db, kept.clientId))) return { demo: undefined, seededNow: false };
  // Started on another port or public URL: the demo callback moved, so the demo client accepts it too.
  const redirectUri = `${platform.config.publicUrl}${DEMO_CALLBACK_PATH}`;
  await addRedirectUri(platform.database.db, kept.clientId, redirectUri);
  // A demo planted by an earlier version: `feira login`'s loopback redirect (RFC 8252 §7.3).
  await addRedirectUri(platform.database.db, kept.clientId, DEMO_CLI_REDIRECT_URI);
  const { database: _planted, ...credentials } = kept;
  const demo = { ...credentials, redirectUri };
  // The folder's main file names the running database's demo again (what the README's examples read).
  writeDemoCredentials(options.dataDir, demo, database);
  return { demo, seededNow: false };
}

/**
 * Runs the demo seller's quote endpoint (demo/demo-seller.ts) on `port` (0: a
 * free one) and points the demo stores at it. The port may change at every
 * start (`--quote-port`, else a free one), so the stores are pointed at it
 * again each time. The caller closes it.
 */
export async function startDemoSellerFor(platform: PlatformContext, demo: DemoCredentials, port = 0): Promise<DemoSeller> {
  const demoSeller = await startDemoSeller({ host: '127.0.0.1', port, stock: catalogueStock(platform.database) });
  try {
    for (const tenant of demo.tenants) await configureDemoSellerShipping(platform, tenant.id, demoSeller.url);
  } catch (error) {
    await demoSeller.close();
    throw error;
  }
  return demoSeller;
}
