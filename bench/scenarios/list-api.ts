import { request } from 'undici';
import { type LoadGenerator, runLoad, startLoadGenerator } from '../lib/load.js';
import type { LoadResult } from '../lib/load-plan.js';
import {
  type BenchDatabase,
  benchDatabase,
  type DatabaseKind,
  postgresMissing,
  profiled,
  startPlatform,
  stopPlatform,
} from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { difference, finite, round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import type { FloorPage } from '../processes/list-floor-server.js';
import type { RawPageQuery, RawResult } from '../processes/list-raw-sql.js';

const SEEDER = new URL('../processes/list-seeder.ts', import.meta.url);
const RAW_SQL = new URL('../processes/list-raw-sql.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const CONSTANT_SERVER = new URL('../processes/constant-server.ts', import.meta.url);
const FLOOR_SERVER = new URL('../processes/list-floor-server.ts', import.meta.url);
/** The goal: the API's CPU per request at most this many times the floor route's, for the same page. */
const FLOOR_CPU_GOAL = 1.5;

/**
 * Quick mode (CI smoke, under 2 minutes for the whole suite) uses far less data
 * and says so in the results: its list figures are not comparable with a full run.
 */
const SIZES = {
  full: { orders: 1_000_000, offset: 5000, cursorPage: 1000, throughputPass: true },
  quick: { orders: 12_000, offset: 1000, cursorPage: 20, throughputPass: false },
} as const;
const LIMIT = 20;
/** One of six statuses: about a sixth of the orders match. */
const STATUS = 'approved';
const THROUGHPUT_CONNECTIONS = 8;

interface PageCase {
  name: string;
  path: string;
  raw: RawPageQuery;
}

const BASE = `/v1/orders?status=${STATUS}&_sort=created_at:desc&_limit=${LIMIT}`;

async function getJson(
  origin: string,
  path: string,
  token: string,
): Promise<{ meta: FloorPage['meta']; results: Array<{ id: string; created_at: string }> }> {
  const response = await request(`${origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${response.statusCode} ${body.slice(0, 300)}`);
  return JSON.parse(body);
}

/** Follows meta.links.next from the first cursor page to page `page`; returns its path and the keyset position before it. */
async function cursorPage(origin: string, token: string, page: number): Promise<{ path: string; after: [string, string] }> {
  let path = `${BASE}&_paginate=cursor`;
  for (let n = 1; n < page; n++) {
    const body = await getJson(origin, path, token);
    const last = body.results.at(-1);
    const next = body.meta.links.next;
    if (!next || !last) throw new Error(`the filtered list ends before cursor page ${page}`);
    const url = new URL(next);
    path = `${url.pathname}${url.search}`;
    if (n === page - 1) return { path, after: [last.created_at, last.id] };
  }
  throw new Error('cursor page must be at least 2');
}

async function measureDialect(ctx: ScenarioContext, generator: LoadGenerator, kind: DatabaseKind): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  const size = SIZES[ctx.mode];
  const { orders, offset } = size;
  const cursorTarget = size.cursorPage;
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const database: BenchDatabase = await benchDatabase(ctx, kind, 'list-api');
  try {
    const seeder = await ctx.children.start('list seeder', SEEDER, {
      options: { databaseUrl: database.url, ...(database.searchPath ? { searchPath: database.searchPath } : {}) },
    });
    const seeded = await seeder.call<{ tenantId: string; rows: number; elapsedMs: number }>('seedOrders', { orders }, 3_600_000);
    await seeder.stop();
    ctx.log(`${label}: seeded ${seeded.rows} orders in ${round(seeded.elapsedMs / 1000, 1)} s`);
    ctx.notes.push(
      `${label}: ${seeded.rows.toLocaleString('en-US')} orders seeded by seedRecords in ${round(seeded.elapsedMs / 1000, 1)} s`,
    );

    const platform = await startPlatform(ctx, database, { fixtures: [SELLER_ACCESS] });
    const { accessToken } = await platform.call<{ accessToken: string }>('createSellerAccess', {
      scopes: ['open:order-order:read'],
      tenantId: seeded.tenantId,
    });
    ctx.log(`${label}: walking to cursor page ${cursorTarget}`);
    const deep = await cursorPage(platform.origin, accessToken, cursorTarget);
    ctx.log(`${label}: measuring the same SQL through the driver`);
    const cases: PageCase[] = [
      { name: 'offset page 1', path: BASE, raw: { name: 'offset page 1', status: STATUS, limit: LIMIT } },
      {
        name: `offset ${offset}`,
        path: `${BASE}&_offset=${offset}`,
        raw: { name: `offset ${offset}`, status: STATUS, limit: LIMIT, offset },
      },
      { name: 'cursor page 1', path: `${BASE}&_paginate=cursor`, raw: { name: 'cursor page 1', status: STATUS, limit: LIMIT } },
      {
        name: `cursor page ${cursorTarget.toLocaleString('en-US')}`,
        path: deep.path,
        raw: { name: `cursor page ${cursorTarget}`, status: STATUS, limit: LIMIT, after: deep.after },
      },
    ];

    const raw = await ctx.children.start('raw SQL', RAW_SQL, {
      options: {
        databaseUrl: database.url,
        ...(database.searchPath ? { searchPath: database.searchPath } : {}),
        tenantId: seeded.tenantId,
        warmupMs: timing.warmupMs,
        durationMs: timing.durationMs,
      },
    });
    const rawResults: RawResult[] = [];
    for (const c of cases) rawResults.push(await raw.call<RawResult>('measure', c.raw));
    await raw.stop();

    const headers = { authorization: `Bearer ${accessToken}` };
    const load = (path: string, connections: number, requestHeaders: Record<string, string> = headers) =>
      generator.run({
        origin: platform.origin,
        connections,
        warmupMs: timing.warmupMs,
        durationMs: timing.durationMs,
        requests: [{ method: 'GET', path, headers: requestHeaders }],
      });
    /** Bytes of one answer's body as sent (undici does not decode it). */
    const wireBytes = async (path: string, requestHeaders: Record<string, string>) => {
      const response = await request(`${platform.origin}${path}`, { headers: requestHeaders });
      return Buffer.from(await response.body.arrayBuffer()).length;
    };
    const gzipHeaders = { ...headers, 'accept-encoding': 'gzip' };
    // The floor route serves each page with the API's own `meta` for it, so both send the same JSON.
    const floor = await ctx.children.start<{ port: number }>('list floor route', FLOOR_SERVER, {
      options: {
        databaseUrl: database.url,
        ...(database.searchPath ? { searchPath: database.searchPath } : {}),
        tenantId: seeded.tenantId,
      },
    });
    const floorPaths: string[] = [];
    for (const c of cases) {
      const { meta } = await getJson(platform.origin, c.path, accessToken);
      floorPaths.push(await floor.call<string>('define', { query: c.raw, meta } satisfies FloorPage));
    }
    /** Runs `phase` and answers its result with the CPU `server` spent per request answered (µs). */
    const withCpu = async (server: { call<T>(op: string): Promise<T> }, phase: () => Promise<LoadResult>) => {
      const from = await server.call<number>('cpuMicros');
      const result = await phase();
      const spent = (await server.call<number>('cpuMicros')) - from;
      // CPU spans the warm-up too: divide by every request answered in it, estimated from the measured rate.
      const answered = result.requestsPerSecond * ((timing.warmupMs + timing.durationMs) / 1000);
      return { result, cpuPerRequest: answered > 0 ? round(spent / answered, 0) : null };
    };
    ctx.log(`${label}: measuring the API and its floor route, page by page`);
    const single: LoadResult[] = [];
    const apiCpu: Array<number | null> = [];
    const floorRuns: Array<{ result: LoadResult; cpuPerRequest: number | null }> = [];
    const busy: LoadResult[] = [];
    for (const [i, c] of cases.entries()) {
      const api = await withCpu(platform, () => profiled(ctx, platform, `list-api-${label}-${c.name}`, () => load(c.path, 1)));
      single.push(api.result);
      apiCpu.push(api.cpuPerRequest);
      floorRuns.push(
        await withCpu(floor, () =>
          generator.run({
            origin: `http://127.0.0.1:${floor.info.port}`,
            connections: 1,
            warmupMs: timing.warmupMs,
            durationMs: timing.durationMs,
            requests: [{ method: 'GET', path: floorPaths[i] as string }],
          }),
        ),
      );
    }
    await floor.stop();
    if (size.throughputPass) for (const c of cases) busy.push(await load(c.path, THROUGHPUT_CONNECTIONS));
    // Compression on and off: cursor page 1 as a client that accepts gzip asks for it (a browser, most SDKs),
    // and the bytes of a 20-order and a 100-order page with and without it.
    const compressedPage = (cases[2] as PageCase).path;
    const gzipped = await load(compressedPage, 1, gzipHeaders);
    const pageOf100 = `${BASE.replace(`_limit=${LIMIT}`, '_limit=100')}&_paginate=cursor`;
    const bytes = {
      plain20: await wireBytes(compressedPage, headers),
      gzip20: await wireBytes(compressedPage, gzipHeaders),
      plain100: await wireBytes(pageOf100, headers),
      gzip100: await wireBytes(pageOf100, gzipHeaders),
    };
    await stopPlatform(ctx, platform, `platform (${label})`);

    const figures: Figure[] = [];
    cases.forEach((c, i) => {
      const api = single[i] as LoadResult;
      const many = busy[i];
      const sqlOnly = rawResults[i] as RawResult;
      for (const r of many ? [api, many] : [api]) {
        if (r.errors) ctx.notes.push(`${label} ${c.name}: ${r.errors} errors (${r.firstError})`);
      }
      const overhead = difference(api.latency.p50Ms, sqlOnly.latency.p50Ms);
      const p50Target = c.name === 'offset 5000' ? { target: { text: 'p50 < 10 ms', met: api.latency.p50Ms < 10 } } : {};
      figures.push(
        figure(`${label} ${c.name} p50`, api.latency.p50Ms, 'ms', {
          baseline: { name: 'same SQL via driver p50', value: sqlOnly.latency.p50Ms, unit: 'ms' },
          ...p50Target,
        }),
        figure(`${label} ${c.name} p99`, api.latency.p99Ms, 'ms', {
          baseline: { name: 'same SQL via driver p99', value: sqlOnly.latency.p99Ms, unit: 'ms' },
        }),
        figure(`${label} ${c.name} API overhead p50 (API p50 − SQL p50)`, overhead, 'ms', {
          target: { text: '< 0.5 ms over the raw SQL', met: overhead !== null && overhead < 0.5 },
        }),
        figure(`${label} ${c.name} (1 connection)`, api.requestsPerSecond, 'req/s', {
          baseline: { name: 'same SQL via driver', value: sqlOnly.queriesPerSecond, unit: 'queries/s' },
        }),
      );
      if (many)
        figures.push(figure(`${label} ${c.name} (${THROUGHPUT_CONNECTIONS} connections)`, many.requestsPerSecond, 'req/s'));
      const bare = floorRuns[i] as { result: LoadResult; cpuPerRequest: number | null };
      if (bare.result.errors)
        ctx.notes.push(`${label} ${c.name} floor route: ${bare.result.errors} errors (${bare.result.firstError})`);
      const cpu = apiCpu[i] ?? null;
      const cpuRatio = cpu !== null && bare.cpuPerRequest ? cpu / bare.cpuPerRequest : null;
      figures.push(
        figure(`${label} ${c.name} process CPU per request`, cpu, 'µs', {
          baseline: { name: 'floor route running the same SQL', value: bare.cpuPerRequest, unit: 'µs' },
          target: { text: `≤ ${FLOOR_CPU_GOAL}× the floor route`, met: cpuRatio !== null && cpuRatio <= FLOOR_CPU_GOAL },
        }),
        figure(`${label} ${c.name} floor route p50`, bare.result.latency.p50Ms, 'ms', {
          baseline: { name: 'the API p50', value: api.latency.p50Ms, unit: 'ms' },
        }),
      );
    });
    const plain = single[2] as LoadResult;
    if (gzipped.errors) ctx.notes.push(`${label} cursor page 1 gzip: ${gzipped.errors} errors (${gzipped.firstError})`);
    figures.push(
      figure(`${label} cursor page 1 p50, Accept-Encoding: gzip`, gzipped.latency.p50Ms, 'ms', {
        baseline: { name: 'the same page uncompressed p50', value: plain.latency.p50Ms, unit: 'ms' },
      }),
      figure(`${label} ${LIMIT}-order page bytes, gzip`, bytes.gzip20, 'bytes', {
        baseline: { name: 'uncompressed', value: bytes.plain20, unit: 'bytes' },
      }),
      figure(`${label} 100-order page bytes, gzip`, bytes.gzip100, 'bytes', {
        baseline: { name: 'uncompressed', value: bytes.plain100, unit: 'bytes' },
      }),
    );
    const first = single[2] as LoadResult;
    const last = single[3] as LoadResult;
    const depthRatio =
      finite(last.latency.p50Ms) && finite(first.latency.p50Ms) ? round(last.latency.p50Ms / first.latency.p50Ms, 3) : null;
    figures.push(
      figure(`${label} cursor page ${cursorTarget.toLocaleString('en-US')} ÷ page 1 (p50)`, depthRatio, '×', {
        target: { text: '≤ 1.5×', met: depthRatio !== null && depthRatio <= 1.5 },
      }),
    );
    return figures;
  } catch (error) {
    // Stop whatever still uses the database before it is dropped.
    await ctx.children.stopAll();
    throw error;
  } finally {
    await database.drop();
  }
}

/**
 * BENCHMARKS.md, "List API": GET /v1/orders with a status filter and a created_at
 * sort, at offset page 1, offset 5000, cursor page 1 and cursor page 1,000,
 * over 1,000,000 orders seeded by the platform's own seeder, on SQLite and
 * PostgreSQL. Baselines: the same SELECT straight through the driver, a
 * bare Fastify route returning a constant, and a floor route (a bare Fastify
 * route on the same driver running the same SELECT and sending the same JSON),
 * whose CPU per request the API's is measured against. Latency is taken on one connection
 * (no queueing in the figure); throughput also at 8 connections.
 */
export const listApi: Scenario = {
  id: 'list-api',
  title: 'List API (orders)',
  async unavailable() {
    const platform = (await import('@feira/platform')) as Record<string, unknown>;
    if (typeof platform.seedRecords !== 'function') return '@feira/platform does not export seedRecords (the bulk seeder) yet';
    if (typeof platform.runList !== 'function') return 'the list engine has not landed';
    return null;
  },
  async run(ctx) {
    const timing = timingFor(ctx.mode);
    if (ctx.mode === 'quick') {
      const q = SIZES.quick;
      ctx.notes.push(
        `quick mode: ${q.orders.toLocaleString('en-US')} orders instead of 1,000,000, offset ${q.offset} instead of 5000, ` +
          `cursor page ${q.cursorPage} instead of 1,000, no ${THROUGHPUT_CONNECTIONS}-connection pass`,
      );
    }
    ctx.notes.push(`filter status=${STATUS} (about 1/6 of the orders), _sort=created_at:desc, _limit=${LIMIT}`);
    const constant = await ctx.children.start<{ port: number }>('fastify constant', CONSTANT_SERVER);
    const floor = await runLoad(ctx.children, {
      origin: `http://127.0.0.1:${constant.info.port}`,
      connections: 1,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      requests: [{ method: 'GET', path: '/constant' }],
    });
    await constant.stop();
    const figures: Figure[] = [figure('Fastify constant route p50 (1 connection)', floor.latency.p50Ms, 'ms')];
    const generator = await startLoadGenerator(ctx.children);
    figures.push(...(await measureDialect(ctx, generator, 'sqlite')));
    // Quick mode stays under 2 minutes on 2 cores: the PostgreSQL variant runs in full mode only.
    const pgMissing = ctx.mode === 'quick' ? 'quick mode runs SQLite only' : await postgresMissing(ctx);
    if (pgMissing) ctx.notes.push(`PostgreSQL variant not run: ${pgMissing}`);
    else figures.push(...(await measureDialect(ctx, generator, 'postgres')));
    await generator.stop();
    return figures;
  },
};
