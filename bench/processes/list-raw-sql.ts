// The list API's SQL baseline: the page's SELECT (lib/list-page-sql.ts) run
// straight through the driver (better-sqlite3 with a statement prepared once,
// or a pg client), one query at a time, no HTTP, no JSON.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { compilePageQuery, type RawPageQuery } from '../lib/list-page-sql.js';
import { LatencyRecorder, type LatencySummary, round } from '../lib/stats.js';

export type { RawPageQuery };

interface Options {
  databaseUrl: string;
  searchPath?: string;
  tenantId: string;
  warmupMs: number;
  durationMs: number;
}

export interface RawResult {
  name: string;
  sql: string;
  rows: number;
  queriesPerSecond: number;
  latency: LatencySummary;
}

const options = childOptions<Options>();
const isSqlite = options.databaseUrl.startsWith('sqlite:');

type Runner = (sql: string, parameters: readonly unknown[]) => Promise<number>;

async function runnerFor(): Promise<{ prepare(sql: string): Runner; close(): Promise<void> }> {
  if (isSqlite) {
    const db = new SqliteDatabase(options.databaseUrl.slice('sqlite:'.length), { readonly: true });
    return {
      prepare(sql) {
        const statement = db.prepare(sql);
        return async (_sql, parameters) => statement.all(...(parameters as unknown[])).length;
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({
    connectionString: options.databaseUrl,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  await client.connect();
  return {
    prepare: () => async (sql, parameters) => (await client.query(sql, parameters as unknown[])).rowCount ?? 0,
    close: () => client.end(),
  };
}

const driver = await runnerFor();

async function measure(q: RawPageQuery): Promise<RawResult> {
  const { sql, parameters } = compilePageQuery(options.databaseUrl, options.tenantId, q);
  const run = driver.prepare(sql);
  const rows = await run(sql, parameters);
  const loopFor = async (ms: number, recorder?: LatencyRecorder) => {
    const end = performance.now() + ms;
    let n = 0;
    for (let t = performance.now(); t < end; n++) {
      await run(sql, parameters);
      const t1 = performance.now();
      recorder?.record((t1 - t) * 1000);
      t = t1;
    }
    return n;
  };
  await loopFor(options.warmupMs);
  const recorder = new LatencyRecorder(200_000);
  const t0 = performance.now();
  const n = await loopFor(options.durationMs, recorder);
  return {
    name: q.name,
    sql,
    rows,
    queriesPerSecond: round((n * 1000) / (performance.now() - t0), 1),
    latency: recorder.summary(),
  };
}

serveChild({}, { measure: (args) => measure(args as RawPageQuery) }, () => driver.close());
