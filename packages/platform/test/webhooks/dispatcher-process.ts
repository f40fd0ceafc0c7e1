// A webhook dispatcher in its own process, for the crash-safety and
// scale-out tests: `node --import tsx dispatcher-process.ts` with
// FEIRA_DATABASE_URL (a test database's sharedDatabaseUrl). It prints `ready`
// once running; the tests SIGKILL it or send SIGTERM.
import { createPlatformContext } from '../../src/app.js';
import { openDatabase } from '../../src/storage/database.js';
import { testConfig, testTls } from '../../src/testing.js';
import { DEFAULT_LEASE_MS, WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';

const url = process.env.FEIRA_DATABASE_URL;
if (!url) throw new Error('FEIRA_DATABASE_URL is required');
const database = await openDatabase(url);
const platform = await createPlatformContext({ config: testConfig(), database, outboundCa: testTls.ca });
const dispatcher = new WebhookDispatcher(
  { ...platform, log: { error: (obj, message) => console.error(message, obj) } },
  {
    worker: process.env.FEIRA_WORKER_NAME ?? `proc-${process.pid}`,
    leaseMs: Number(process.env.FEIRA_LEASE_MS ?? DEFAULT_LEASE_MS),
    requestTimeoutMs: Number(process.env.FEIRA_REQUEST_TIMEOUT_MS ?? 5_000),
    batchSize: Number(process.env.FEIRA_BATCH_SIZE ?? 100),
    perEndpointInFlight: Number(process.env.FEIRA_PER_ENDPOINT ?? 8),
    pollIntervalMs: 10,
  },
);
dispatcher.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void dispatcher.stop().then(async () => {
    await database.close();
    process.exit(0);
  });
});
