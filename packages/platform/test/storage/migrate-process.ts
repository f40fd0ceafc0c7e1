// Opens FEIRA_DATABASE_URL (search_path FEIRA_PG_SCHEMA on PostgreSQL), runs
// the migrations and prints what it applied as JSON: the concurrent-start test
// runs two of these at once against one empty database.
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest, pendingMigrations } from '../../src/storage/migrate.js';

const url = process.env.FEIRA_DATABASE_URL;
if (!url) throw new Error('FEIRA_DATABASE_URL is required');
const schema = process.env.FEIRA_PG_SCHEMA;
const database = await openDatabase(url, schema ? { searchPath: schema } : {});
try {
  const applied = await migrateToLatest(database);
  const pending = await pendingMigrations(database);
  process.stdout.write(`${JSON.stringify({ applied, pending })}\n`);
} finally {
  await database.close();
}
