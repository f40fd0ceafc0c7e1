// The list API's floor: a bare Fastify route on the same driver running the
// same SELECT for the same page (lib/list-page-sql.ts), turning its rows into
// orders with the platform's own `present`, and serializing the same envelope
// through the same response schema. No authentication, no rate limit, no
// hooks, no query parsing, no cursor signing: what is left is the least any
// list route on this stack must do, so the API's CPU per request over the
// floor's is what its conventions and guards cost.
import { ListEnvelope, type ListMeta, Order } from '@feira/contract';
import { orderKind } from '@feira/platform';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { compilePageQuery, type RawPageQuery } from '../lib/list-page-sql.js';

interface Options {
  databaseUrl: string;
  searchPath?: string;
  tenantId: string;
}

/** One page the floor serves at `/page/<index>`: its query, and the API's `meta` for that page, sent as is. */
export interface FloorPage {
  query: RawPageQuery;
  meta: ListMeta;
}

const options = childOptions<Options>();
type Row = Parameters<typeof orderKind.present>[0];
type Run = (parameters: readonly unknown[]) => Promise<Row[]>;

async function driver(): Promise<{ prepare(sql: string): Run; close(): Promise<void> }> {
  if (options.databaseUrl.startsWith('sqlite:')) {
    const db = new SqliteDatabase(options.databaseUrl.slice('sqlite:'.length), { readonly: true });
    return {
      prepare(sql) {
        const statement = db.prepare(sql);
        return async (parameters) => statement.all(...(parameters as unknown[])) as Row[];
      },
      close: async () => {
        db.close();
      },
    };
  }
  // The platform's pool size, and Kysely's way of running a statement: unnamed, planned at every call.
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: 10,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  return {
    prepare: (sql) => async (parameters) => (await pool.query({ text: sql, values: parameters as unknown[] })).rows as Row[],
    close: () => pool.end(),
  };
}

const db = await driver();
const pages: Array<{ run: Run; parameters: readonly unknown[]; limit: number; meta: ListMeta }> = [];

const app = Fastify({ logger: false });
app.addSchema({ ...Order, $id: 'Order' });
app.addSchema({ ...ListEnvelope({ $ref: 'Order#' } as unknown as typeof Order), $id: 'OrderList' });
app.get<{ Params: { index: string } }>(
  '/page/:index',
  { schema: { response: { 200: { $ref: 'OrderList#' } } } },
  async (request) => {
    const page = pages[Number(request.params.index)];
    if (!page) throw new Error('no such page');
    const rows = await page.run(page.parameters);
    return { meta: page.meta, results: rows.slice(0, page.limit).map(orderKind.present) };
  },
);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();

serveChild(
  { port: typeof address === 'object' && address ? address.port : 0 },
  {
    /** Adds a page; answers its path. */
    define(args) {
      const { query, meta } = args as FloorPage;
      const { sql, parameters } = compilePageQuery(options.databaseUrl, options.tenantId, query);
      pages.push({ run: db.prepare(sql), parameters, limit: query.limit, meta });
      return `/page/${pages.length - 1}`;
    },
    /** The process's CPU time so far (µs, user + system), as the platform process reports it. */
    cpuMicros() {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
  },
  async () => {
    await app.close();
    await db.close();
  },
);
