// A webhook dispatcher in its own process, for the crash-safety and
// scale-out tests: `node --import tsx dispatcher-process.ts` with
// FEIRA_DATABASE_URL (a test database's sharedDatabaseUrl). It prints `ready`
// once running; the tests SIGKILL it or send SIGTERM. Built by the composition
// root with the dispatcher role, as `feira dispatch` is.
import { createPlatform } from '../../src/platform.js';
import { testConfig, testTls } from '../../src/testing.js';
import { DEFAULT_LEASE_MS } from '../../src/webhooks/webhook-dispatcher.js';

const url = process.env.FEIRA_DATABASE_URL;
if (!url) throw new Error('FEIRA_DATABASE_URL is required');
const platform = await createPlatform({
  databaseUrl: url,
  roles: { api: false, dispatcher: true },
  config: testConfig({
    dispatcher: {
      leaseMs: Number(process.env.FEIRA_LEASE_MS ?? DEFAULT_LEASE_MS),
      batchSize: Number(process.env.FEIRA_BATCH_SIZE ?? 100),
      perEndpointInFlight: Number(process.env.FEIRA_PER_ENDPOINT ?? 8),
    },
  }),
  outboundCa: testTls.ca,
  workerLog: { error: (obj, message) => console.error(message, obj) },
  // What the settings table does not carry: the test's worker name, a short request timeout and poll.
  dispatcherOptions: {
    worker: process.env.FEIRA_WORKER_NAME ?? `proc-${process.pid}`,
    requestTimeoutMs: Number(process.env.FEIRA_REQUEST_TIMEOUT_MS ?? 5_000),
    pollIntervalMs: 10,
  },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void platform.close().then(() => process.exit(0));
});
