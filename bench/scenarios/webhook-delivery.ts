import { createHmac, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_DISPATCHER_TUNING, type QuietWindowStats } from '@feira/platform';
import { machineBusyMicros, testTls } from '@feira/platform/testing';
import { request } from 'undici';
import { type Arrivals, endToEndRate, sustainedRate, waitFor, waitForQuiet } from '../lib/deliveries.js';
import { startLoadGenerator } from '../lib/load.js';
import { commandCpuMicros } from '../lib/peak-rss.js';
import {
  benchDatabase,
  type DatabaseKind,
  postgresMissing,
  profiled,
  startPlatform,
  stopPlatform,
} from '../lib/platform-process.js';
import { postgresServerSummary, walSyncs } from '../lib/postgres-schema.js';
import {
  DURABLE_REDIS_ARGS,
  PRODUCTION_REDIS_ARGS,
  redisAnswers,
  redisDir,
  redisPersistence,
  startRedisServer,
} from '../lib/redis-server.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { summarizeMicros } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';

const RECEIVER = new URL('../processes/webhook-receiver.ts', import.meta.url);
const BULLMQ_SENDER = new URL('../processes/bullmq-sender.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const WEBHOOK_EVENTS = new URL('../processes/fixtures/webhook-events.ts', import.meta.url).href;
/** The dispatcher's default in-flight limit per endpoint; the bare loop gets the same number of connections. */
const CONNECTIONS = DEFAULT_DISPATCHER_TUNING.perEndpointInFlight;
/**
 * Each system's latency is taken at half its own end-to-end sustained rate (writes or enqueues offered
 * flat out with this many in flight, while its deliveries run), where neither is saturated: a fixed rate
 * saturates a slower host, and then measures its queue instead of its latency.
 */
const FLAT_OUT_IN_FLIGHT = 32;
const LIVE_SHARE = 0.5;
const AT_HALF = 'at half its sustained rate';
/** The machine's own Redis (.ci/run starts one when none runs). */
const MACHINE_REDIS_PORT = Number(process.env.FEIRA_BENCH_REDIS_PORT ?? 6379);
const BACKLOG = { quick: 1_000, full: 60_000 } as const;

function ms(value: number | null): string {
  return value === null ? '—' : `${value.toFixed(1)} ms`;
}

/** "N (M complete, mean X ms)": the SQLite checkpointer's quiet windows between two readings. */
function quietWindowsBetween(from: QuietWindowStats, to: QuietWindowStats): string {
  const windows = to.windows - from.windows;
  const mean = windows ? ms((to.totalMs - from.totalMs) / windows) : '—';
  return `${windows} (${to.complete - from.complete} complete, mean ${mean})`;
}

/**
 * What the peer comparison needs from one measurement: sustained rate, acknowledged→delivery p99 (D87),
 * machine CPU per delivery.
 */
interface DeliveryRun {
  figures: Figure[];
  /** Orders written and delivered per second, flat out, and the rate the latency was taken at. */
  endToEnd: number | null;
  liveRate: number;
  rate: number | null;
  p99Ms: number | null;
  machineUs: number | null;
}

/** The restated goals against the BullMQ peer (D88): machine CPU per delivery, at most this share of the peer's. */
const CPU_SHARE_GOAL = { sqlite: 0.5, postgres: 0.65 } as const;
/** …and acknowledged→delivery p99 at most this many times the peer's. */
const P99_TIMES_GOAL = 3;

/**
 * Runs `phase` and returns the whole machine's busy CPU time it took per unit of `units` (µs; null off
 * Linux): every process on the two cores counted, the database server, Redis and the receiver included.
 * Unlike a rate, it hardly moves with how fast the host runs that day, and it counts work a design
 * moves from one process to another.
 */
async function machineCpuPer<T>(phase: () => Promise<T>, units: (result: T) => number): Promise<[T, number | null]> {
  const from = machineBusyMicros();
  const result = await phase();
  const to = machineBusyMicros();
  const n = units(result);
  return [result, from === null || to === null || n <= 0 ? null : Math.round((to - from) / n)];
}

interface PeerRun {
  rate: number | null;
  endToEnd: number | null;
  liveRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  machineUs: number | null;
  /** How its Redis keeps data, as the server reports it. */
  redis: string;
}

/**
 * The peer: a BullMQ queue on Redis (at `redisPort`) and a worker that signs and posts
 * the same messages to a receiver of its own with the same connection limit.
 * Same backlog and formula for the rate; its latency clock starts when `queue.add()` resolves (D87).
 */
async function measurePeer(ctx: ScenarioContext, redisPort: number): Promise<PeerRun> {
  const timing = timingFor(ctx.mode);
  const receiver = await ctx.children.start<{ port: number; url: string }>('webhook receiver (peer)', RECEIVER);
  const redis = await redisPersistence(redisPort);
  const sender = await ctx.children.start('BullMQ sender', BULLMQ_SENDER, {
    env: { FEIRA_BENCH_REDIS_PORT: String(redisPort) },
  });
  try {
    const tenantId = randomUUID();
    const secret = `whsec_${randomUUID().replaceAll('-', '')}`;
    const backlog = BACKLOG[ctx.mode];
    await sender.call('enqueue', { tenantId, count: backlog }, 600_000);
    await receiver.call('reset');
    const [, machineUs] = await machineCpuPer(
      async () => {
        await sender.call('start', { url: receiver.info.url, secret, tenantId });
        await waitFor('BullMQ draining the backlog', ctx.mode === 'full' ? 600_000 : 60_000, async () => {
          return (await receiver.call<number>('count')) >= backlog;
        });
      },
      () => backlog,
    );
    const rate = sustainedRate((await receiver.call<Arrivals>('arrivals')).times);
    await receiver.call('reset');
    const enqueuedPerSecond = await sender.call<number>(
      'produceFlatOut',
      { tenantId, durationMs: timing.warmupMs + timing.durationMs, concurrency: FLAT_OUT_IN_FLIGHT },
      600_000,
    );
    const endToEnd = endToEndRate(enqueuedPerSecond, (await receiver.call<Arrivals>('arrivals')).times, Date.now());
    await waitForQuiet('BullMQ delivering the flat-out jobs', 600_000, () => receiver.call<number>('count'));
    if (endToEnd === null) throw new Error('BullMQ delivered nothing while enqueued flat out');
    const liveRate = Math.max(1, Math.round(endToEnd * LIVE_SHARE));
    await receiver.call('reset');
    const produced = await sender.call<number>(
      'produce',
      { tenantId, rate: liveRate, durationMs: timing.warmupMs + timing.durationMs },
      600_000,
    );
    await waitFor(
      `BullMQ delivering the ${liveRate}/s jobs`,
      60_000,
      async () => (await receiver.call<number>('count')) >= produced,
    );
    const live = await receiver.call<Arrivals>('arrivals');
    const enqueuedAt = await sender.call<Record<string, number>>('enqueuedAt');
    const sorted = Object.keys(live.byId)
      .filter((id) => enqueuedAt[id] !== undefined)
      .sort((a, b) => (enqueuedAt[a] as number) - (enqueuedAt[b] as number));
    const measured = sorted.slice(Math.floor((sorted.length * timing.warmupMs) / (timing.warmupMs + timing.durationMs)));
    const latency = summarizeMicros(measured.map((id) => ((live.byId[id] as number) - (enqueuedAt[id] as number)) * 1000));
    return { rate, endToEnd, liveRate, p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, machineUs, redis };
  } finally {
    await sender.stop();
    await receiver.stop();
  }
}

/**
 * The peer on a `redis-server` of the scenario's own (in `dir` under the scratch folder, started with `args`),
 * stopped afterwards; null, with a note, where no such server starts (an error in CI, where one must).
 */
async function measurePeerOnOwnRedis(
  ctx: ScenarioContext,
  redis: { dir: string; args: readonly string[]; what: string },
): Promise<PeerRun | null> {
  const own = await startRedisServer(redisDir(ctx.scratchDir, redis.dir), redis.args);
  if (typeof own === 'string') {
    if (process.env.CI) throw new Error(`BullMQ peer (${redis.what}): ${own}`);
    ctx.notes.push(`BullMQ peer on a ${redis.what} not run: ${own}`);
    return null;
  }
  ctx.log(`BullMQ peer, ${redis.what}: backlog, flat out, then half that rate`);
  try {
    return await measurePeer(ctx, own.port);
  } finally {
    await own.stop();
  }
}

async function measureDialect(ctx: ScenarioContext, kind: DatabaseKind): Promise<DeliveryRun> {
  const timing = timingFor(ctx.mode);
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const database = await benchDatabase(ctx, kind, 'webhooks');
  try {
    const receiver = await ctx.children.start<{ port: number; url: string }>('webhook receiver', RECEIVER);
    const platform = await startPlatform(ctx, database, { fixtures: [SELLER_ACCESS, WEBHOOK_EVENTS], outboundCa: testTls.ca });
    const access = await platform.call<{ tenantId: string; accessToken: string }>('createSellerAccess', {
      scopes: ['open:order-order:read', 'open:webhook:write'],
    });
    const signup = await request(`${platform.origin}/v1/onboarding/signup`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${access.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook: receiver.info.url, topics: ['order'] }),
    });
    const signupBody = await signup.body.text();
    if (signup.statusCode !== 200) throw new Error(`signup: HTTP ${signup.statusCode} ${signupBody.slice(0, 300)}`);
    const secret = (JSON.parse(signupBody) as { subscriptions: Array<{ parameters: { secret: string } }> }).subscriptions[0]
      ?.parameters.secret as string;

    // Baseline: a bare undici loop posting a signed message of the same shape to the same receiver.
    const generator = await startLoadGenerator(ctx.children);
    const orderId = randomUUID();
    const body = JSON.stringify({
      data: { status: 'CREATION', params: { id: orderId }, resource: `/v1/orders/${orderId}` },
      tenant_id: access.tenantId,
      topic: 'order',
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    // Machine CPU per request over the whole run (warm-up included) at the measured rate.
    const [bare, bareMachineUs] = await machineCpuPer(
      () =>
        generator.run({
          origin: new URL(receiver.info.url).origin,
          ca: testTls.ca,
          connections: CONNECTIONS,
          warmupMs: timing.warmupMs,
          durationMs: timing.durationMs,
          requests: [
            {
              method: 'POST',
              path: '/webhooks',
              headers: {
                'content-type': 'application/json',
                'x-signature-256': `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
                'x-timestamp': timestamp,
                'x-webhook-id': randomUUID(),
              },
              body,
            },
          ],
        }),
      (result) => (result.requestsPerSecond * (timing.warmupMs + timing.durationMs)) / 1000,
    );

    // Sustained throughput: a backlog of committed events, then the dispatcher is started and drains it.
    const backlog = BACKLOG[ctx.mode];
    ctx.log(`${label}: writing ${backlog} orders (with their outbox events)`);
    await platform.call('createOrders', { tenantId: access.tenantId, count: backlog }, 1_800_000);
    await receiver.call('reset');
    ctx.log(`${label}: dispatching the backlog`);
    const drainCpuFrom = await platform.call<number>('cpuMicros');
    const quietBeforeDrain = await platform.call<QuietWindowStats | null>('walQuietWindows');
    const syncsBeforeDrain = kind === 'postgres' ? await walSyncs(database.url) : null;
    const [, drainMachineUs] = await machineCpuPer(
      () =>
        profiled(ctx, platform, `webhook-delivery-${label}-drain`, async () => {
          await platform.call('startDispatcher');
          await waitFor(
            'draining the backlog',
            ctx.mode === 'full' ? 600_000 : 60_000,
            async () => (await receiver.call<number>('count')) >= backlog,
          );
        }),
      () => backlog,
    );
    const drainCpu = ((await platform.call<number>('cpuMicros')) - drainCpuFrom) / backlog;
    const drained = await receiver.call<Arrivals>('arrivals');
    const deliveriesPerSecond = sustainedRate(drained.times);

    // The end-to-end sustained rate: orders written through the admin API flat out while the dispatcher runs.
    const orderWrite = {
      method: 'POST' as const,
      path: `/admin/v1/tenants/${access.tenantId}/orders`,
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        customer: { id: 'cust-bench', name: 'Ana Silva' },
        items: [{ sku: 'SKU-BENCH-1', quantity: 1, price: 10 }],
      }),
    };
    await receiver.call('reset');
    ctx.log(`${label}: orders written flat out (${FLAT_OUT_IN_FLIGHT} in flight) and delivered`);
    const flatOut = await generator.run({
      origin: platform.origin,
      connections: FLAT_OUT_IN_FLIGHT,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      requests: [orderWrite],
      okStatuses: [201],
    });
    const endToEnd = endToEndRate(flatOut.requestsPerSecond, (await receiver.call<Arrivals>('arrivals')).times, Date.now());
    await waitForQuiet('delivering the flat-out orders', 600_000, () => receiver.call<number>('count'));
    if (flatOut.errors) ctx.notes.push(`${label} flat-out writes: ${flatOut.errors} errors (${flatOut.firstError})`);
    if (endToEnd === null) throw new Error(`${label}: nothing delivered while orders were written flat out`);
    const liveRate = Math.max(1, Math.round(endToEnd * LIVE_SHARE));

    // Commit→delivery latency at half that rate through the admin API (open loop).
    await receiver.call('reset');
    ctx.log(`${label}: commit→delivery at ${liveRate}/s`);
    const liveCpuFrom = await platform.call<number>('cpuMicros');
    // PostgreSQL does the database's share of each order in its own processes, where SQLite does it inside
    // the platform's: counted beside the platform's CPU, the two databases compare like with like.
    const serverCpuFrom = kind === 'postgres' ? commandCpuMicros('postgres') : 0;
    const quietBeforeLive = await platform.call<QuietWindowStats | null>('walQuietWindows');
    const syncsBeforeLive = kind === 'postgres' ? await walSyncs(database.url) : null;
    const writes = await profiled(ctx, platform, `webhook-delivery-${label}-live`, () =>
      generator.run({
        origin: platform.origin,
        connections: 64,
        ratePerSecond: liveRate,
        warmupMs: timing.warmupMs,
        durationMs: timing.durationMs,
        requests: [orderWrite],
        okStatuses: [201],
        // Each acknowledged order's id and the moment its 201 arrived: where the latency clock starts (D87).
        sampleField: 'id',
      }),
    );
    const liveCpu = (await platform.call<number>('cpuMicros')) - liveCpuFrom;
    const serverCpuTo = kind === 'postgres' ? commandCpuMicros('postgres') : 0;
    const serverCpu = serverCpuFrom === null || serverCpuTo === null ? null : serverCpuTo - serverCpuFrom;
    const quietAfterLive = await platform.call<QuietWindowStats | null>('walQuietWindows');
    const expected = writes.requests + writes.errors; // every order the platform accepted in the window, at least
    await waitFor(`delivering the ${liveRate}/s orders`, 60_000, async () => (await receiver.call<number>('count')) >= expected);
    await delay(500); // deliveries of orders written in the warm-up and tail still arriving are included too
    const live = await receiver.call<Arrivals>('arrivals');
    const ids = Object.keys(live.byId);
    const syncsAfterLive = kind === 'postgres' ? await walSyncs(database.url) : null;
    const createdAt = await platform.call<Record<string, number>>('orderCreatedAt', { ids });
    const sorted = ids
      .filter((id) => createdAt[id] !== undefined)
      .sort((a, b) => (createdAt[a] as number) - (createdAt[b] as number));
    // Drop the warm-up share of the earliest orders.
    const measured = sorted.slice(Math.floor((sorted.length * timing.warmupMs) / (timing.warmupMs + timing.durationMs)));
    const latency = summarizeMicros(measured.map((id) => ((live.byId[id] as number) - (createdAt[id] as number)) * 1000));
    // The clock the targets use (D87): from the admin API's 201 arriving at the writer, for the same orders.
    const acknowledgedAt = new Map(writes.arrivedAt ?? []);
    const acknowledged = measured.filter((id) => acknowledgedAt.has(id));
    const ackLatency = summarizeMicros(
      acknowledged.map((id) => ((live.byId[id] as number) - (acknowledgedAt.get(id) as number)) * 1000),
    );
    const overtaken = acknowledged.filter((id) => (live.byId[id] as number) < (acknowledgedAt.get(id) as number)).length;
    ctx.notes.push(
      `${label} acknowledged→delivery: ${acknowledged.length} of ${measured.length} measured orders acknowledged; ` +
        `${overtaken} deliveries arrived before their order's 201 reached the writer (counted as negative latencies)`,
    );
    // Where the time went: the admin write itself, commit→first attempt started (the dispatcher), and the request.
    const sentAt = await platform.call<Record<string, number>>('firstAttemptAt', { ids: measured });
    const withSend = measured.filter((id) => sentAt[id] !== undefined);
    const toSend = summarizeMicros(withSend.map((id) => ((sentAt[id] as number) - (createdAt[id] as number)) * 1000));
    const inFlight = summarizeMicros(withSend.map((id) => ((live.byId[id] as number) - (sentAt[id] as number)) * 1000));
    ctx.notes.push(
      `${label} at ${liveRate}/s (half of ${endToEnd}/s written and delivered flat out), p50 / p99 / max: admin write ${ms(writes.latency.p50Ms)} / ${ms(writes.latency.p99Ms)} / ${ms(writes.latency.maxMs)}; ` +
        `commit→send ${ms(toSend.p50Ms)} / ${ms(toSend.p99Ms)} / ${ms(toSend.maxMs)}; ` +
        `send→arrival ${ms(inFlight.p50Ms)} / ${ms(inFlight.p99Ms)} / ${ms(inFlight.maxMs)}; ` +
        `commit→delivery max ${ms(latency.maxMs)}`,
    );
    if (quietBeforeDrain && quietBeforeLive && quietAfterLive) {
      // Each window kept the writer's queries waiting while the checkpointer thread restarted the WAL.
      ctx.notes.push(
        `${label} WAL quiet windows: ${quietWindowsBetween(quietBeforeDrain, quietBeforeLive)} in the drain, ` +
          `${quietWindowsBetween(quietBeforeLive, quietAfterLive)} at ${liveRate}/s; longest ${ms(quietAfterLive.longestMs)}`,
      );
    }

    if (syncsBeforeDrain !== null && syncsBeforeLive !== null && syncsAfterLive !== null) {
      // Each is a commit that waited for the disk (the API's order writes must; the dispatcher's need not).
      const orders = ids.length; // every order delivered in the phase, warm-up included
      ctx.notes.push(
        `${label} WAL flushes (pg_stat_wal, whole server): ${(((syncsBeforeLive - syncsBeforeDrain) / backlog) * 1000).toFixed(1)} ` +
          `per 1,000 deliveries in the drain, ${orders > 0 ? ((syncsAfterLive - syncsBeforeLive) / orders).toFixed(2) : '?'} per order at ${liveRate}/s`,
      );
    }

    await generator.stop();
    await stopPlatform(ctx, platform, `platform (${label})`);
    await receiver.stop();
    if (bare.errors) ctx.notes.push(`${label} bare loop: ${bare.errors} errors (${bare.firstError})`);
    if (writes.errors) ctx.notes.push(`${label} admin writes: ${writes.errors} errors (${writes.firstError})`);
    if (writes.late) ctx.notes.push(`${label} admin writes: ${writes.late} could not be sent on time (64 in flight)`);

    // The bare loop is a baseline only: the goal of half its rate is withdrawn (D88).
    const figures = [
      figure(`${label} sustained signed deliveries`, deliveriesPerSecond, 'deliveries/s', {
        baseline: { name: `bare undici loop, ${CONNECTIONS} connections`, value: bare.requestsPerSecond, unit: 'req/s' },
        ...(kind === 'sqlite' ? { target: { text: '≥ 3,000/s', met: (deliveriesPerSecond ?? 0) >= 3000 } } : {}),
      }),
      figure(`${label} orders written and delivered, flat out`, endToEnd, 'orders/s'),
      figure(`${label} acknowledged→delivery p50 ${AT_HALF}`, ackLatency.p50Ms, 'ms'),
      figure(`${label} acknowledged→delivery p99 ${AT_HALF}`, ackLatency.p99Ms, 'ms'),
      figure(`${label} commit→delivery p50 ${AT_HALF}`, latency.p50Ms, 'ms'),
      figure(`${label} commit→delivery p99 ${AT_HALF}`, latency.p99Ms, 'ms'),
      figure(`${label} admin order writes achieved ${AT_HALF}`, writes.requestsPerSecond, 'orders/s'),
      figure(`${label} platform CPU per delivery, backlog drain`, Math.round(drainCpu), 'µs'),
      figure(`${label} machine CPU per delivery, backlog drain (every process)`, drainMachineUs, 'µs', {
        baseline: { name: 'bare undici loop, machine CPU per request', value: bareMachineUs, unit: 'µs' },
      }),
      figure(`${label} platform CPU per order ${AT_HALF} (API write and its delivery)`, Math.round(liveCpu / ids.length), 'µs'),
      figure(
        `${label} platform and database server CPU per order ${AT_HALF}${kind === 'sqlite' ? ' (the database runs in the platform)' : ''}`,
        serverCpu === null ? null : Math.round((liveCpu + serverCpu) / ids.length),
        'µs',
      ),
    ];
    return { figures, rate: deliveriesPerSecond, endToEnd, liveRate, p99Ms: ackLatency.p99Ms, machineUs: drainMachineUs };
  } catch (error) {
    await ctx.children.stopAll();
    throw error;
  } finally {
    await database.drop();
  }
}

/**
 * BENCHMARKS.md, "Webhook delivery": the real dispatcher (as `feira start` runs it)
 * delivering signed v1 webhooks over HTTPS to a receiver process, on SQLite
 * and PostgreSQL: sustained deliveries/s draining a backlog of committed
 * events, and commit→delivery latency while orders are written through the
 * admin API at half the rate it writes and delivers them flat out (the peer's
 * latency likewise at half its own). Baseline: a bare undici loop posting the same signed
 * bodies to the same receiver with as many connections as the dispatcher uses
 * per endpoint.
 */
export const webhookDelivery: Scenario = {
  id: 'webhook-delivery',
  title: 'Webhook delivery',
  // Two platforms' worth of start-up plus the BullMQ peer: more than the default 120 s on a busy 2-core host.
  quickBudgetMs: 240_000,
  async unavailable() {
    const platform = (await import('@feira/platform')) as Record<string, unknown>;
    if (typeof platform.insertOrder !== 'function') return 'the record writes (insertOrder) have not landed';
    return null;
  },
  async run(ctx) {
    ctx.notes.push(
      `backlog of ${BACKLOG[ctx.mode].toLocaleString('en-US')} committed events drained by the dispatcher (rate over the last 90 %); ` +
        'latency clocks (D87), Date.now() of the same machine at both ends: Feira acknowledged→delivery = receiver arrival − ' +
        "the admin API's 201 arriving at the writer; Feira commit→delivery (older figure) = receiver arrival − order created_at " +
        '(inside the transaction, before its commit); BullMQ acknowledged→delivery = receiver arrival − queue.add() resolved',
    );
    const runs: Array<[string, DeliveryRun, DatabaseKind]> = [['SQLite', await measureDialect(ctx, 'sqlite'), 'sqlite']];
    // Quick mode stays under 2 minutes on 2 cores: the PostgreSQL variant runs in full mode only.
    const pgMissing = ctx.mode === 'quick' ? 'quick mode runs SQLite only' : await postgresMissing(ctx);
    if (pgMissing) ctx.notes.push(`PostgreSQL variant not run: ${pgMissing}`);
    else {
      ctx.notes.push(`PostgreSQL server: ${await postgresServerSummary(ctx.postgresUrl as string)}`);
      runs.push(['PostgreSQL', await measureDialect(ctx, 'postgres'), 'postgres']);
    }
    const figures = runs.flatMap(([, run]) => run.figures);
    // The peer the targets compare with runs on a Redis of its own, configured as BullMQ's production
    // guide asks (AOF, fsync every second): a queue that keeps nothing on disk loses every job on a
    // restart, while Feira's outbox commits to its database. Full mode also measures the peer on the
    // machine's own Redis as it is configured (in CI it keeps nothing on disk).
    const noRedis = (await redisAnswers(MACHINE_REDIS_PORT, 2_000))
      ? null
      : `Redis does not answer on 127.0.0.1:${MACHINE_REDIS_PORT}`;
    if (noRedis && process.env.CI) throw new Error(`BullMQ peer: ${noRedis}`);
    const production = await measurePeerOnOwnRedis(ctx, {
      dir: 'redis',
      args: PRODUCTION_REDIS_ARGS,
      what: 'Redis with AOF (fsync every second)',
    });
    let machine: PeerRun | null = null;
    if (!noRedis && (ctx.mode === 'full' || production === null)) {
      ctx.log("BullMQ peer, the machine's Redis: backlog, flat out, then half that rate");
      machine = await measurePeer(ctx, MACHINE_REDIS_PORT);
    } else if (noRedis) {
      ctx.notes.push(`BullMQ peer on the machine's Redis not run: ${noRedis}`);
    }
    // Full mode also measures the peer on a Redis that syncs every enqueue before answering: an order Feira
    // reports committed on PostgreSQL has waited for its WAL flush, so this is the peer at the same durability.
    const durable =
      ctx.mode === 'full'
        ? await measurePeerOnOwnRedis(ctx, {
            dir: 'redis-always',
            args: DURABLE_REDIS_ARGS,
            what: 'Redis with AOF (fsync every write)',
          })
        : null;
    ctx.notes.push(
      'BullMQ peer: worker concurrency 32, undici Agent of 32 connections, same signature scheme and receiver code; ' +
        'completed jobs kept; its "commit" is the acknowledged enqueue (no transactional outbox)',
    );
    // Each peer with how Feira's figures name it. The first (the production-configured one when it ran) is
    // the targets' baseline; the machine's Redis and the Redis syncing every write are for comparison only.
    const peers: Array<[string, PeerRun, string]> = [];
    if (production) peers.push(['BullMQ + Redis (AOF everysec)', production, 'the BullMQ peer']);
    if (machine)
      peers.push(["BullMQ + the machine's Redis", machine, peers.length ? "BullMQ on the machine's Redis" : 'the BullMQ peer']);
    if (durable) peers.push(['BullMQ + Redis (AOF always)', durable, 'BullMQ syncing every enqueue']);
    for (const [name, run] of peers) {
      ctx.notes.push(`${name}: ${run.redis}`);
      figures.push(
        figure(`${name} sustained signed deliveries`, run.rate, 'deliveries/s'),
        figure(`${name} jobs enqueued and delivered, flat out`, run.endToEnd, 'jobs/s'),
        figure(`${name} acknowledged→delivery p50 ${AT_HALF}`, run.p50Ms, 'ms'),
        figure(`${name} acknowledged→delivery p99 ${AT_HALF}`, run.p99Ms, 'ms'),
        figure(`${name} machine CPU per delivery, backlog drain (every process)`, run.machineUs, 'µs'),
      );
    }
    for (const [i, [name, peer, peerName]] of peers.entries()) {
      for (const [label, run, kind] of runs) {
        const ratio = run.rate !== null && peer.rate ? run.rate / peer.rate : 0;
        const p99Met = run.p99Ms !== null && peer.p99Ms !== null && run.p99Ms <= P99_TIMES_GOAL * peer.p99Ms;
        const cpuShare = CPU_SHARE_GOAL[kind];
        const cpuMet = run.machineUs !== null && peer.machineUs !== null && run.machineUs <= cpuShare * peer.machineUs;
        figures.push(
          figure(`${label} Feira sustained deliveries vs ${peerName}`, run.rate, 'deliveries/s', {
            baseline: { name, value: peer.rate, unit: 'deliveries/s' },
            ...(i === 0 ? { target: { text: '≥ 1.0× the peer', met: ratio >= 1 } } : {}),
          }),
          figure(`${label} Feira acknowledged→delivery p99 ${AT_HALF} vs ${peerName}`, run.p99Ms, 'ms', {
            baseline: { name: `${name}, acknowledged→delivery p99 ${AT_HALF}`, value: peer.p99Ms, unit: 'ms' },
            ...(i === 0 ? { target: { text: `≤ ${P99_TIMES_GOAL}× the peer`, met: p99Met } } : {}),
          }),
          figure(`${label} Feira machine CPU per delivery vs ${peerName}`, run.machineUs, 'µs', {
            baseline: { name: `${name}, machine CPU per delivery`, value: peer.machineUs, unit: 'µs' },
            ...(i === 0 ? { target: { text: `≤ ${cpuShare}× the peer`, met: cpuMet } } : {}),
          }),
        );
      }
    }
    return figures;
  },
};
