// BENCHMARKS.md, "scale-out": on PostgreSQL, the list endpoint and the token
// endpoint served by `feira start --workers 1` against `--workers 2` (the real
// cluster: one port, the primary handing connections out), and a backlog of
// webhook events drained by one dispatcher process against two. Each pair in
// one run, so the ratio is the figure. On 2 cores with the load generator,
// PostgreSQL and the receiver on the same machine, a second worker has little
// idle CPU to use: the note of the run says so, and the ratio is what it is.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testTls } from '@feira/platform/testing';
import { request } from 'undici';
import { type Arrivals, sustainedRate, waitFor } from '../lib/deliveries.js';
import { startLoadGenerator } from '../lib/load.js';
import type { LoadResult } from '../lib/load-plan.js';
import { benchDatabase, postgresMissing, startPlatform, stopPlatform } from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { timingFor } from '../lib/timing.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';
import type { PreparedCodes } from '../processes/fixtures/authorization-codes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECEIVER = new URL('../processes/webhook-receiver.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const CODE_FIXTURES = new URL('../processes/fixtures/authorization-codes.ts', import.meta.url).href;
const WEBHOOK_EVENTS = new URL('../processes/fixtures/webhook-events.ts', import.meta.url).href;
const EXCHANGE = new URL('../processes/workloads/token-exchange.ts', import.meta.url).href;
/** The bench platform process's secret key: the cluster must open the signing keys it stored. */
const BENCH_SECRET_KEY = 'bench-secret-key-not-for-production';
const ORDERS = { quick: 2_000, full: 20_000 } as const;
const BACKLOG = { quick: 1_000, full: 20_000 } as const;
const LIST_CONNECTIONS = 32;
const TOKEN_CONNECTIONS = 16;
const CODES_PER_SECOND = 8_000;

interface Cluster {
  origin: string;
  stop(): Promise<void>;
}

/** `feira start --workers <n> --no-dispatcher` on the bench schema; resolves once n distinct workers answer. */
async function startCluster(ctx: ScenarioContext, databaseUrl: string, workers: number): Promise<Cluster> {
  const dataDir = mkdtempSync(join(ctx.scratchDir, `cluster-${workers}-`));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'packages/cli/bin/feira.js',
      'start',
      '--workers',
      String(workers),
      '--no-dispatcher',
      '--port',
      '0',
      '--seed',
      'none',
      // Plain HTTP, as every other scenario measures: the sandbox serves HTTPS unless told otherwise.
      '--http',
      // The measured app's calls are the load itself: its rate limit (spec-notes I20) set out of the way.
      '--api-rate-limit',
      '100000',
      '--api-burst',
      '1000000',
      '--public-url',
      'http://127.0.0.1',
      '--data-dir',
      dataDir,
      '--log-level',
      'silent',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        FEIRA_DATABASE: databaseUrl,
        FEIRA_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        FEIRA_SECRET_KEY: BENCH_SECRET_KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    let origin = '';
    await waitFor(`feira start --workers ${workers} listening`, 240_000, async () => {
      if (child.exitCode !== null) throw new Error(`feira start exited (${child.exitCode}):\n${out.slice(-2000)}`);
      const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (port) origin = `http://127.0.0.1:${port}`;
      return origin !== '';
    });
    await waitFor(`${workers} API worker(s) answering`, 240_000, async () => {
      const pids = new Set<string>();
      await Promise.all(
        Array.from({ length: 4 * workers }, async () => {
          const res = await request(`${origin}/metrics`, { reset: true });
          const pid = /feira_process_info\{pid="(\d+)"\} 1/.exec(await res.body.text())?.[1];
          if (pid) pids.add(pid);
        }),
      );
      return pids.size >= workers;
    });
    return { origin, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The bench schema as one URL (`feira start` takes no separate search path). */
function withSearchPath(url: string, schema: string | undefined): string {
  const parsed = new URL(url);
  if (schema) parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

async function apiWorkerFigures(ctx: ScenarioContext): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  const database = await benchDatabase(ctx, 'postgres', 'scale-out-api');
  const prep = await startPlatform(ctx, database, { fixtures: [SELLER_ACCESS, CODE_FIXTURES, WEBHOOK_EVENTS] });
  const generator = await startLoadGenerator(ctx.children);
  try {
    const { tenantId, accessToken } = await prep.call<{ tenantId: string; accessToken: string }>('createSellerAccess', {
      scopes: ['open:order-order:read'],
    });
    ctx.log(`writing ${ORDERS[ctx.mode]} orders`);
    await prep.call('createOrders', { tenantId, count: ORDERS[ctx.mode] }, 1_800_000);
    const codeCount = Math.ceil(((timing.warmupMs + timing.durationMs) / 1000) * CODES_PER_SECOND);
    const runs: Record<1 | 2, { list: LoadResult; exchanges: LoadResult }> = {} as never;
    for (const workers of [1, 2] as const) {
      ctx.log(`issuing ${codeCount} authorization codes`);
      const codes = await prep.call<PreparedCodes>('issueCodes', { count: codeCount }, 600_000);
      ctx.log(`feira start --workers ${workers}`);
      const cluster = await startCluster(ctx, withSearchPath(database.url, database.searchPath), workers);
      try {
        ctx.log(`${workers} worker(s): list endpoint`);
        const list = await generator.run({
          origin: cluster.origin,
          connections: LIST_CONNECTIONS,
          warmupMs: timing.warmupMs,
          durationMs: timing.durationMs,
          requests: [
            {
              method: 'GET',
              path: '/v1/orders?status=approved&_sort=created_at:desc&_limit=20',
              headers: { authorization: `Bearer ${accessToken}`, 'x-tenant-id': tenantId },
            },
          ],
        });
        ctx.log(`${workers} worker(s): token endpoint (code exchanges)`);
        const exchanges = await generator.run({
          origin: cluster.origin,
          connections: TOKEN_CONNECTIONS,
          warmupMs: timing.warmupMs,
          durationMs: timing.durationMs,
          workload: { module: EXCHANGE, options: codes },
        });
        runs[workers] = { list, exchanges };
      } finally {
        await cluster.stop();
      }
    }
    for (const workers of [1, 2] as const) {
      for (const [name, r] of Object.entries(runs[workers])) {
        if (r.errors) ctx.notes.push(`${workers} worker(s), ${name}: ${r.errors} errors (${r.firstError})`);
      }
    }
    const one = runs[1];
    const two = runs[2];
    return [
      figure('list endpoint, 1 API worker', one.list.requestsPerSecond, 'req/s'),
      figure('list endpoint, 2 API workers', two.list.requestsPerSecond, 'req/s', {
        baseline: { name: '1 API worker', value: one.list.requestsPerSecond, unit: 'req/s' },
      }),
      figure('list endpoint p99, 2 API workers', two.list.latency.p99Ms, 'ms', {
        baseline: { name: '1 API worker p99', value: one.list.latency.p99Ms, unit: 'ms' },
      }),
      figure('code exchanges, 1 API worker', one.exchanges.requestsPerSecond, 'exchanges/s'),
      figure('code exchanges, 2 API workers', two.exchanges.requestsPerSecond, 'exchanges/s', {
        baseline: { name: '1 API worker', value: one.exchanges.requestsPerSecond, unit: 'exchanges/s' },
      }),
    ];
  } finally {
    await generator.stop();
    await stopPlatform(ctx, prep, 'fixtures platform (PostgreSQL)');
    await database.drop();
  }
}

async function dispatcherFigures(ctx: ScenarioContext): Promise<Figure[]> {
  const database = await benchDatabase(ctx, 'postgres', 'scale-out-dispatch');
  const receiver = await ctx.children.start<{ port: number; url: string }>('webhook receiver', RECEIVER);
  const fixtures = { fixtures: [SELLER_ACCESS, WEBHOOK_EVENTS], outboundCa: testTls.ca };
  const writer = await startPlatform(ctx, database, fixtures);
  try {
    const access = await writer.call<{ tenantId: string; accessToken: string }>('createSellerAccess', {
      scopes: ['open:order-order:read', 'open:webhook:write'],
    });
    const signup = await request(`${writer.origin}/v1/onboarding/signup`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${access.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook: receiver.info.url, topics: ['order'] }),
    });
    const signupBody = await signup.body.text();
    if (signup.statusCode !== 200) throw new Error(`signup: HTTP ${signup.statusCode} ${signupBody.slice(0, 300)}`);

    const backlog = BACKLOG[ctx.mode];
    const rates: Record<1 | 2, number | null> = { 1: null, 2: null };
    for (const count of [1, 2] as const) {
      ctx.log(`writing a backlog of ${backlog} orders`);
      await writer.call('createOrders', { tenantId: access.tenantId, count: backlog }, 1_800_000);
      await receiver.call('reset');
      const dispatchers = await Promise.all(
        Array.from({ length: count }, () => startPlatform(ctx, database, { fixtures: [WEBHOOK_EVENTS], outboundCa: testTls.ca })),
      );
      try {
        ctx.log(`${count} dispatcher(s) draining it`);
        await Promise.all(dispatchers.map((d) => d.call('startDispatcher')));
        await waitFor('draining the backlog', ctx.mode === 'full' ? 600_000 : 120_000, async () => {
          return (await receiver.call<number>('count')) >= backlog;
        });
        rates[count] = sustainedRate((await receiver.call<Arrivals>('arrivals')).times);
      } finally {
        for (const [i, d] of dispatchers.entries()) await stopPlatform(ctx, d, `dispatcher ${i + 1} (PostgreSQL)`);
      }
    }
    return [
      figure('deliveries drained, 1 dispatcher', rates[1], 'deliveries/s'),
      figure('deliveries drained, 2 dispatchers', rates[2], 'deliveries/s', {
        baseline: { name: '1 dispatcher', value: rates[1], unit: 'deliveries/s' },
      }),
    ];
  } finally {
    await stopPlatform(ctx, writer, 'platform (PostgreSQL)');
    await receiver.stop();
    await database.drop();
  }
}

export const scaleOut: Scenario = {
  id: 'scale-out',
  title: 'Scale-out on PostgreSQL (API workers, dispatchers)',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    if (ctx.mode === 'quick') {
      // Four clusters and three dispatcher processes: a minute more of CI for figures nobody reads in quick mode.
      ctx.notes.push('not run in quick mode (PostgreSQL and several processes): `npm run bench -- --only scale-out`');
      return [];
    }
    const missing = await postgresMissing(ctx);
    if (missing) throw new Error(`needs PostgreSQL: ${missing}`);
    ctx.notes.push(
      `feira start --workers 1 against --workers 2 (node:cluster, one port) on one PostgreSQL schema with ${ORDERS[ctx.mode].toLocaleString('en-US')} orders: ` +
        `GET /v1/orders (status filter, sort, 20 a page) with ${LIST_CONNECTIONS} connections and code exchanges with ${TOKEN_CONNECTIONS}, closed loop; ` +
        `then a backlog of ${BACKLOG[ctx.mode].toLocaleString('en-US')} events drained by 1 and by 2 dispatcher processes. ` +
        '2 cores carry the workers, PostgreSQL, the load generator and the receiver: a second process finds little idle CPU, so a ratio near 1 here says nothing of a machine with cores to spare',
    );
    return [...(await apiWorkerFigures(ctx)), ...(await dispatcherFigures(ctx))];
  },
};
