// The SELECT the list engine issues for one page of GET /v1/orders (filter,
// sort, id tiebreak in the direction of the last sort, limit + 1, then OFFSET
// or the bounded keyset condition of lists/list-engine.ts), compiled once for
// the list scenario's baselines. The text must stay the engine's to the
// letter: an earlier version sorted the id ascending, which no index serves in
// one scan, and so "the same SQL" ran several times slower than the API around
// it (docs/decisions.md D30).
import { type CompiledQuery, type Expression, Kysely, PostgresDialect, type SqlBool, SqliteDialect } from 'kysely';

export interface RawPageQuery {
  name: string;
  status: string;
  limit: number;
  offset?: number;
  /** Keyset position: [created_at, id] of the last row of the previous page. */
  after?: [string, string];
}

/** Compiles `q` for one store in the dialect of `databaseUrl` (a compile-only Kysely: it never runs anything). */
export function compilePageQuery(databaseUrl: string, tenantId: string, q: RawPageQuery): CompiledQuery {
  // biome-ignore lint/suspicious/noExplicitAny: only used to compile one statement.
  const compiler = new Kysely<any>({
    dialect: databaseUrl.startsWith('sqlite:')
      ? new SqliteDialect({ database: async () => ({}) as never })
      : new PostgresDialect({ pool: async () => ({}) as never }),
  });
  let query = compiler
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
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
