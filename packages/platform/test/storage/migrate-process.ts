// Opens FEIRA_DATABASE_URL (a test database's sharedDatabaseUrl), runs the
// migrations and prints what it applied as JSON: the concurrent-start test
// runs two of these at once against one empty database.
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest, pendingMigrations } from '../../src/storage/migrate.js';

const url = process.env.FEIRA_DATABASE_URL;
if (!url) throw new Error('FEIRA_DATABASE_URL is required');
const database = await openDatabase(url);
try {
  const applied = await migrateToLatest(database);
  const pending = await pendingMigrations(database);
  process.stdout.write(`${JSON.stringify({ applied, pending })}\n`);
} finally {
  await database.close();
}
