// A process whose last work is one write to the quote log's own file:
// `node --import tsx quote-log-process.ts <sqlite file> <tenant id>`. It neither
// closes the store nor exits: the test checks that it waits for the write and
// then ends by itself (the writer thread holds the process only while it has
// a batch to confirm).
import { quoteLogStoreFor } from '../../src/shipping/quote-log/quote-log.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { quoteCallRow } from './shipping-kit.js';

const [file, tenantId] = process.argv.slice(2);
if (!file || !tenantId) throw new Error('usage: quote-log-process.ts <sqlite file> <tenant id>');
const database = await openDatabase(`sqlite:${file}`);
await migrateToLatest(database);
await quoteLogStoreFor(database).write([quoteCallRow(tenantId, 1)]);
console.log('written');
