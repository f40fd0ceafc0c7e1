// Query plans for the index tests (list indexes, queue indexes): how a compiled
// statement would read its tables, on SQLite (EXPLAIN QUERY PLAN) and on
// PostgreSQL (EXPLAIN (FORMAT JSON), without running it).
import type SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/** SQLite: the plan's lines, e.g. `SEARCH orders USING INDEX orders_tenant_created_idx (tenant_id=?)`. */
export function sqlitePlan(raw: SqliteDatabase.Database, query: CompiledQuery): string[] {
  return raw
    .prepare(`explain query plan ${query.sql}`)
    .all(...(query.parameters as unknown[]))
    .map((row) => (row as { detail: string }).detail);
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** PostgreSQL: every node of the plan, depth first, as the session's settings (e.g. `enable_seqscan`) make it. */
export async function postgresPlanNodes(client: pg.ClientBase, query: CompiledQuery): Promise<PlanNode[]> {
  const explained = await client.query(`explain (format json) ${query.sql}`, query.parameters as unknown[]);
  const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
  return nodes((explained.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]?.Plan as PlanNode);
}
