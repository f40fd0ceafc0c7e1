// Quick throughput probe of webhook delivery, not a test:
//   TSX_TSCONFIG_PATH=tsconfig.typecheck.json node --import tsx packages/platform/test/webhooks/throughput-probe.ts [events]
// Commits N events to the outbox of a SQLite platform with one v1 subscription,
// runs one in-process dispatcher until every delivery succeeded, and compares
// with a bare undici loop posting the same bodies to the same receiver.
import { Agent, request } from 'undici';
import { appendEvent } from '../../src/records/outbox.js';
import { createTestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { forkThroughputReceiver } from './forked-receiver.js';
import { sellerWithToken, signup, wallClock } from './webhook-kit.js';

const N = Number(process.argv[2] ?? 5000);
const receiver = await forkThroughputReceiver();
const { url, stats } = receiver;
const platform = await createTestPlatform(testDatabaseTargets()[0]!, { outboundCa: testTls.ca, clock: wallClock() });
const seller = await sellerWithToken(platform);
await signup(platform, seller, 'v1', url);
const bodies: string[] = [];
const commit = (count: number, from: number) =>
  platform.database.db.transaction().execute(async (trx) => {
    for (let i = from; i < from + count; i++) {
      await appendEvent(
        trx,
        {
          tenantId: seller.tenantId,
          topic: 'sac_ticket',
          status: 'CREATION',
          recordId: `t${i}`,
          resource: `/seller/v0/tickets/t${i}`,
        },
        platform.app.platform,
      );
    }
  });

const succeeded = async () =>
  Number(
    (
      await platform.database.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'succeeded')
        .executeTakeFirstOrThrow()
    ).n,
  );
// Warm the pool first (TLS handshakes: the outbound agent builds a secure context per
// connection), so both measurements run on keep-alive connections.
const WARM = 500;
await commit(WARM, N);
const dispatcher = new WebhookDispatcher(platform.app.platform, {
  batchSize: 500,
  maxInFlight: 256,
  perEndpointInFlight: Number(process.env.PER_ENDPOINT ?? 32),
  pollIntervalMs: 5,
});
dispatcher.start();
while ((await succeeded()) < WARM) await new Promise((r) => setTimeout(r, 20));
await commit(N, 0);
const t0 = performance.now();
while ((await succeeded()) < N + WARM) await new Promise((r) => setTimeout(r, 20));
const dispatchMs = performance.now() - t0;
console.log('receiver after dispatch', JSON.stringify(await stats()));
await dispatcher.stop();
for (const row of await platform.database.db.selectFrom('outbox_events').select('body').execute()) bodies.push(row.body);

const agent = new Agent({
  connect: { ca: testTls.ca },
  connections: Number(process.env.PER_ENDPOINT ?? 32),
  keepAliveTimeout: 10_000,
});
await Promise.all(
  Array.from({ length: 32 }, () => request(url, { method: 'POST', body: '{}', dispatcher: agent }).then((r) => r.body.dump())),
);
const t1 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < N) {
      const body = bodies[next++ % bodies.length] as string;
      const res = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        dispatcher: agent,
      });
      await res.body.dump();
    }
  }),
);
const bareMs = performance.now() - t1;
const dispatchRate = N / (dispatchMs / 1000);
const bareRate = N / (bareMs / 1000);
console.log(
  JSON.stringify({
    events: N,
    signedDeliveriesPerSecond: Math.round(dispatchRate),
    bareUndiciPerSecond: Math.round(bareRate),
    ratio: Number((dispatchRate / bareRate).toFixed(2)),
  }),
);
await agent.close();
await platform.close();
receiver.kill();
