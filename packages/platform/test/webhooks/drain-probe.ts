// Webhook backlog drain probe, not a test:
//   TSX_TSCONFIG_PATH=tsconfig.typecheck.json node --import tsx packages/platform/test/webhooks/drain-probe.ts [events] [profile.cpuprofile]
//   (PROBE_DIALECT=postgres for PostgreSQL)
// Commits N order events to a SQLite platform with one v1 subscription, then starts one
// dispatcher with the default options (as `feira start` runs it; PROBE_OPTIONS=<json> overrides
// them; PROBE_SQL=<statements;…> runs schema changes to try first; on PostgreSQL pass
// PROBE_SQL='analyze outbox_events', or the claim plans for a table it believes nearly empty and
// reads the whole backlog each time; a long-lived table has been analyzed by autovacuum) and reports the drain rate
// and the dispatcher process's CPU time per delivery, taken over the last 90 % as the benchmark
// does, with the whole machine's (PostgreSQL and the receiver included). CPU per delivery is the
// figure to compare on a busy machine: wall rates move with the other processes, CPU time much
// less; the machine's figure also counts work a change moves from the database to the platform.
// PROBE_SENDS=none answers every request with a 200 at once, inside the process, instead of posting it
// (each is still signed): the bookkeeping's own ceiling, what a dispatcher whose sends cost nothing
// on its event loop (a sender thread, say) could at best reach on this machine.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { sql } from 'kysely';
import type { Dispatcher } from 'undici';
import { appendEvent } from '../../src/records/outbox.js';
import { createTestPlatform, machineBusyMicros, testDatabaseTargets, testTls } from '../../src/testing.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { forkThroughputReceiver } from './forked-receiver.js';
import { sellerWithToken, signup, wallClock } from './webhook-kit.js';

const N = Number(process.argv[2] ?? 5000);

const profileFile = process.argv[3];
const receiver = await forkThroughputReceiver();
const { url } = receiver;
const sendsNone = process.env.PROBE_SENDS === 'none';
let answered = 0;
/**
 * PROBE_SENDS=none: a 200 for every request with no socket, answered from the event loop's check phase
 * as a socket's answer would come from its poll phase (answered on a microtask, a SQLite drain never
 * yields to timers, and the probe could not time it).
 */
const answerAtOnce = {
  dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    setImmediate(() => {
      handler.onConnect?.(() => {});
      handler.onHeaders?.(200, [], () => {}, 'OK');
      handler.onComplete?.([]);
      answered += 1;
    });
    return true;
  },
} as unknown as Dispatcher;
const stats = async () => (sendsNone ? { count: answered, connections: 0 } : receiver.stats());
// PROBE_DIALECT=postgres (with FEIRA_TEST_DATABASE_URL) drains from PostgreSQL; its server's CPU is not counted.
const target = testDatabaseTargets().find((t) => t.dialect === (process.env.PROBE_DIALECT ?? 'sqlite'));
if (!target) throw new Error('PROBE_DIALECT names a database that is not configured');
const platform = await createTestPlatform(target, { outboundCa: testTls.ca, clock: wallClock() });
const seller = await sellerWithToken(platform);
await signup(platform, seller, 'v1', url, ['order']);
const commit = (count: number, from: number) =>
  platform.database.db.transaction().execute(async (trx) => {
    for (let i = from; i < from + count; i++) {
      await appendEvent(
        trx,
        { tenantId: seller.tenantId, topic: 'order', status: 'CREATION', recordId: `o${i}`, resource: `/v1/orders/o${i}` },
        platform.app.platform,
      );
    }
  });
for (let i = 0; i < N; i += 1000) await commit(Math.min(1000, N - i), i);
for (const statement of (process.env.PROBE_SQL ?? '').split(';').filter((x) => x.trim()))
  await sql.raw(statement).execute(platform.database.db);
const dispatcher = new WebhookDispatcher(
  sendsNone ? { ...platform.app.platform, outbound: answerAtOnce } : platform.app.platform,
  JSON.parse(process.env.PROBE_OPTIONS ?? '{}'),
);
let session: Session | null = null;
if (profileFile) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpu0 = process.cpuUsage();
const t0 = performance.now();
dispatcher.start();
let tenth = 0;
let cpuTenth = cpu0;
let machineTenth = machineBusyMicros();
for (;;) {
  const { count } = await stats();
  if (!tenth && count >= N / 10) {
    tenth = performance.now();
    cpuTenth = process.cpuUsage();
    machineTenth = machineBusyMicros();
  }
  if (count >= N) break;
  await new Promise((r) => setTimeout(r, 10));
}
const t1 = performance.now();
const cpu1 = process.cpuUsage(cpuTenth);
const machine1 = machineBusyMicros();
if (session) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileFile as string, JSON.stringify(profile));
}
await dispatcher.stop();
const rest = N - Math.ceil(N / 10);
console.log(
  JSON.stringify({
    events: N,
    wallRate: Math.round(N / ((t1 - t0) / 1000)),
    rateLast90: Math.round(rest / ((t1 - tenth) / 1000)),
    cpuUsPerDelivery: Math.round((cpu1.user + cpu1.system) / rest),
    cpuShare: Number(((cpu1.user + cpu1.system) / 1000 / (t1 - tenth)).toFixed(2)),
    machineCpuUsPerDelivery: machine1 === null || machineTenth === null ? null : Math.round((machine1 - machineTenth) / rest),
    receiver: await stats(),
  }),
);
await platform.close();
receiver.kill();
