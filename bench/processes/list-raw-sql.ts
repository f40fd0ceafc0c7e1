// The list API's baseline: the same SELECT the list engine issues for a page
// (filter, sort, id tiebreak in the direction of the last sort, limit + 1, then
// OFFSET or the bounded keyset condition of lists/list-engine.ts), run straight
// through the driver (better-sqlite3 with a statement prepared once, or a pg
// client), one query at a time, no HTTP, no JSON. The text must stay the
// engine's to the letter: an earlier version sorted the id ascending, which no
// index serves in one scan, and so "the same SQL" ran several times slower than
// the API around it (docs/decisions.md D30).
import SqliteDatabase from 'better-sqlite3';
import { type Expression, Kysely, PostgresDialect, type SqlBool, SqliteDialect } from 'kysely';
import pg from 'pg';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { LatencyRecorder, type LatencySummary, round } from '../lib/stats.js';

export interface RawPageQuery {
  name: string;
  status: string;
  limit: number;
  offset?: number;
  /** Keyset position: [created_at, id] of the last row of the previous page. */
  after?: [string, string];
}

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
// A compile-only Kysely: it builds the SQL text and parameters, never runs them.
// biome-ignore lint/suspicious/noExplicitAny: only used to compile one statement.
const compiler = new Kysely<any>({
  dialect: isSqlite
    ? new SqliteDialect({ database: async () => ({}) as never })
    : new PostgresDialect({ pool: async () => ({}) as never }),
});

function compile(q: RawPageQuery) {
  let query = compiler
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', options.tenantId)
    .where('status', '=', q.status)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (q.after) {
    const [createdAt, id] = q.after;
    query = query.where(
      (eb) =>
        eb.and([
          eb('created_at', '<=', createdAt),
          eb.or([eb.and([eb('created_at', '<', createdAt)]), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]),
        ]) as Expression<SqlBool>,
    );
  } else if (q.offset) {
    query = query.offset(q.offset);
  }
  return query.limit(q.limit + 1).compile();
}

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
  const { sql, parameters } = compile(q);
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
