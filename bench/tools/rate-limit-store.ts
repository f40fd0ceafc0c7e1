// What taking one request from an app's rate-limit bucket costs (spec-notes I20), for choosing the store:
// the platform's one GCRA upsert through its own Kysely handle (accounts/api-rate-limit.ts) against
// rate-limiter-flexible's SQLite (better-sqlite3) and PostgreSQL stores, one limiter and the two a
// BurstyRateLimiter needs for a burst above a rate. Each case takes from one bucket many times in a row,
// every request admitted, and reports the wall time and this process's CPU time (user + system) per
// request, and the statements each request sent (better-sqlite3 statement runs and prepares, pg queries).
//
// rate-limiter-flexible is not a dependency of the repository; make it resolvable for this run only, e.g.
//
//   (cd /tmp/rlf && npm install rate-limiter-flexible@11.4.0) && ln -s /tmp/rlf/node_modules/rate-limiter-flexible node_modules/
//   npm run build
//   node --import tsx bench/tools/rate-limit-store.ts [--requests 20000] [--postgres postgres://…]

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite from 'better-sqlite3';
import pg from 'pg';
import { DEFAULT_POSTGRES_URL } from '../lib/cli-options.js';
import { createScratchSchema } from '../lib/postgres-schema.js';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '20000' }, postgres: { type: 'string', default: DEFAULT_POSTGRES_URL } },
});
const REQUESTS = Number(values.requests);
const require = createRequire(import.meta.url);

const platform = (await import('@feira/platform')) as typeof import('@feira/platform');
const { takeApiRequest } = (await import(
  new URL('../../packages/platform/dist/accounts/api-rate-limit.js', import.meta.url).href
)) as typeof import('../../packages/platform/src/accounts/api-rate-limit.js');
const flexible = require('rate-limiter-flexible') as {
  RateLimiterSQLite: new (options: Record<string, unknown>, ready?: (error?: Error) => void) => Limiter;
  RateLimiterPostgres: new (options: Record<string, unknown>, ready?: (error?: Error) => void) => Limiter;
  BurstyRateLimiter: new (a: Limiter, b: Limiter) => Limiter;
};
interface Limiter {
  consume(key: string, points?: number): Promise<unknown>;
}

let statements = 0;
function countSqlite(): () => void {
  const probe = new BetterSqlite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  const database = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const wrapped: Array<[Record<string, (...args: unknown[]) => unknown>, string, (...args: unknown[]) => unknown]> = [];
  for (const [target, names] of [
    [statement, ['run', 'get', 'all', 'iterate']],
    [database, ['prepare', 'exec']],
  ] as const) {
    for (const name of names) {
      const original = target[name] as (...args: unknown[]) => unknown;
      wrapped.push([target, name, original]);
      target[name] = function (this: unknown, ...args: unknown[]) {
        statements++;
        return original.apply(this, args);
      };
    }
  }
  return () => {
    for (const [target, name, original] of wrapped) target[name] = original;
  };
}
function countPg(): () => void {
  const proto = pg.Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = proto.query as (...args: unknown[]) => unknown;
  proto.query = function (this: unknown, ...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
  return () => {
    proto.query = original;
  };
}

async function measure(name: string, take: () => Promise<unknown>, count: () => () => void) {
  for (let i = 0; i < 500; i++) await take();
  const restore = count();
  statements = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await take();
  const wallUs = Number(process.hrtime.bigint() - started) / 1000 / REQUESTS;
  const used = process.cpuUsage(cpu);
  restore();
  const cpuUs = (used.user + used.system) / REQUESTS;
  console.log(`| ${name} | ${wallUs.toFixed(1)} µs | ${cpuUs.toFixed(1)} µs | ${(statements / REQUESTS).toFixed(2)} |`);
}

const LIMIT = { requestsPerSecond: 1_000_000, burst: 1_000_000_000 };
console.log(`${REQUESTS} requests per case, every one admitted\n`);
console.log('| case | wall per request | CPU per request | statements per request |');
console.log('| --- | --- | --- | --- |');

const dir = mkdtempSync(join(tmpdir(), 'feira-rate-limit-'));
try {
  const file = join(dir, 'feira.db');
  const database = await platform.openDatabase(`sqlite:${file}`);
  await platform.migrateToLatest(database);
  await measure(
    'SQLite: GCRA upsert (Feira)',
    () => takeApiRequest(database, { clientId: 'app', bucket: 'store' }, LIMIT, new Date()),
    countSqlite,
  );
  // rate-limiter-flexible on its own better-sqlite3 handle of the same file, with the platform's PRAGMAs.
  const handle = new BetterSqlite(file);
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = NORMAL');
  handle.pragma('busy_timeout = 5000');
  const sqliteLimiter = (keyPrefix: string, duration: number) =>
    new Promise<Limiter>((resolve, reject) => {
      const made: Limiter = new flexible.RateLimiterSQLite(
        { storeClient: handle, storeType: 'better-sqlite3', tableName: 'rlf', keyPrefix, points: 1_000_000_000, duration },
        (error) => (error ? reject(error) : resolve(made)),
      );
    });
  const one = await sqliteLimiter('one', 1);
  await measure('SQLite: rate-limiter-flexible', () => one.consume('app:store'), countSqlite);
  const bursty = new flexible.BurstyRateLimiter(await sqliteLimiter('rate', 1), await sqliteLimiter('burst', 10));
  await measure('SQLite: rate-limiter-flexible, BurstyRateLimiter', () => bursty.consume('app:store'), countSqlite);
  handle.close();
  await database.close();

  const scratch = await createScratchSchema(values.postgres);
  try {
    const pgDatabase = await platform.openDatabase(values.postgres, { searchPath: scratch.schema });
    await platform.migrateToLatest(pgDatabase);
    await measure(
      'PostgreSQL: GCRA upsert (Feira)',
      () => takeApiRequest(pgDatabase, { clientId: 'app', bucket: 'store' }, LIMIT, new Date()),
      countPg,
    );
    await pgDatabase.close();
    const pool = new pg.Pool({ connectionString: values.postgres, options: `-c search_path=${scratch.schema}`, max: 5 });
    let tables = 0;
    // Each limiter creates its table, then says it is ready.
    const ready = () =>
      new Promise<Limiter>((resolve, reject) => {
        tables++;
        const made: Limiter = new flexible.RateLimiterPostgres(
          { storeClient: pool, tableName: `rlf_${tables}`, points: 1_000_000_000, duration: 1 },
          (error) => (error ? reject(error) : resolve(made)),
        );
      });
    const pgOne = await ready();
    await measure('PostgreSQL: rate-limiter-flexible', () => pgOne.consume('app:store'), countPg);
    const pgBursty = new flexible.BurstyRateLimiter(await ready(), await ready());
    await measure('PostgreSQL: rate-limiter-flexible, BurstyRateLimiter', () => pgBursty.consume('app:store'), countPg);
    await pool.end();
  } finally {
    await scratch.drop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
