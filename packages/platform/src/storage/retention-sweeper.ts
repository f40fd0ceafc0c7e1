import { setImmediate as nextTurn } from 'node:timers/promises';
import { type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../core/clock.js';
import { holdLease, releaseLease } from './background-lease.js';
import type { Database } from './database.js';

/** Where a batch of a rule starts and what it did: how many rows went, and where the next batch starts. */
interface RetentionBatch {
  /** The sweep's time (the platform's clock, so a moved sandbox clock sweeps as time would). */
  now: Date;
  /** Rows to delete at most, in one short statement (or transaction). */
  limit: number;
  /** Where the previous batch of this pass stopped (the rule's own cursor); null for the first batch. */
  after: string | null;
}

/**
 * One table's retention: each capability declares the rules of the tables it
 * owns (its index exports them) and keeps their SQL; the sweeper only runs them.
 */
export interface RetentionRule {
  /** The table it sweeps: the metric's label and the log's word. */
  name: string;
  /** The tables its deletes leave dead rows in, when more than `name` (rows that go with it by ON DELETE CASCADE). */
  tables?: readonly string[];
  /** Deletes at most `limit` rows that may go at `now`; `next` null when this pass has nothing more. */
  sweep(batch: RetentionBatch): Promise<{ deleted: number; next: string | null }>;
}

export interface RetentionSweeperOptions {
  rules: readonly RetentionRule[];
  /** This process's name in the lease row. */
  holder: string;
  batchRows: number;
  intervalMs: number;
  /** Where a failed pass is reported (the next pass tries again). */
  log?: { error(obj: object, message: string): void };
}

/** The lease row every sweeping process asks for: one of them sweeps at a time. */
const RETENTION_LEASE = 'retention-sweep';

/** How long a pass holds the lease without renewing it; each batch renews it, so a stalled holder loses it. */
const LEASE_MS = 60_000;

/**
 * PostgreSQL: a pass that deleted at least this share of a table's rows (as
 * the table's statistics counted them before it) vacuums the table at once,
 * so the next writes reuse the space instead of extending the file while
 * autovacuum waits for its turn (docs/decisions.md D137).
 */
const VACUUM_SHARE = 0.1;

/**
 * Runs the retention rules in the background, in bounded batches: each batch
 * is one short statement over an index, and the sweep yields a turn of the
 * event loop between two, so requests and deliveries queued behind it wait
 * for one batch at most (on SQLite the connection is the process's only one).
 * When several processes run it on one database, the lease row lets one of
 * them sweep at a time; the others find it held and wait for the next pass.
 */
export class RetentionSweeper {
  readonly #deps: { database: Database; clock: Clock; metrics?: Registry };
  readonly #options: RetentionSweeperOptions;
  readonly #deleted: Counter<'table'> | undefined;
  readonly #vacuums: Counter<'table'> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #stopping = false;
  #firstPass: Promise<void> = Promise.resolve();
  #firstPassOver: () => void = () => {};

  constructor(deps: { database: Database; clock: Clock; metrics?: Registry }, options: RetentionSweeperOptions) {
    this.#deps = deps;
    this.#options = options;
    const registry = deps.metrics;
    this.#deleted = registry
      ? ((registry.getSingleMetric('feira_retention_deleted_rows_total') as Counter<'table'> | undefined) ??
        new Counter({
          name: 'feira_retention_deleted_rows_total',
          help: 'Rows the retention sweep deleted, by table',
          labelNames: ['table'],
          registers: [registry],
        }))
      : undefined;
    this.#vacuums = registry
      ? ((registry.getSingleMetric('feira_retention_vacuums_total') as Counter<'table'> | undefined) ??
        new Counter({
          name: 'feira_retention_vacuums_total',
          help: 'VACUUMs the retention sweep ran after deleting a large share of a table (PostgreSQL), by table',
          labelNames: ['table'],
          registers: [registry],
        }))
      : undefined;
  }

  /** Sweeps now and then every interval, until `stop()`. */
  start(): void {
    this.#firstPass = new Promise((resolve) => {
      this.#firstPassOver = resolve;
    });
    const tick = () => {
      this.#timer = undefined;
      this.#running = this.sweepOnce()
        .catch((error: unknown) => this.#options.log?.error({ err: error }, 'retention sweep failed; the next one tries again'))
        .finally(() => {
          this.#firstPassOver();
          if (!this.#stopping) this.#timer = setTimeout(tick, this.#options.intervalMs).unref();
        });
    };
    this.#timer = setTimeout(tick, 0).unref();
  }

  /** Resolves once the pass `start()` runs at once is over, or the sweep stopped before it ran. */
  firstPass(): Promise<void> {
    return this.#firstPass;
  }

  /**
   * One pass over every rule, if this process gets the lease: the rows each
   * rule deleted, by table; null when another process holds the lease.
   */
  async sweepOnce(): Promise<Record<string, number> | null> {
    const { database, clock } = this.#deps;
    const lease = { name: RETENTION_LEASE, holder: this.#options.holder, ttlMs: LEASE_MS };
    if (!(await holdLease(database.db, { ...lease, now: clock.now() }))) return null;
    const deleted: Record<string, number> = {};
    for (const rule of this.#options.rules) {
      let after: string | null = null;
      deleted[rule.name] = 0;
      const rowsBefore = await this.#rowsCounted(rule);
      do {
        if (this.#stopping) return deleted;
        const now = clock.now();
        // Renewed before each batch: a process that stalled past its lease stops here instead of sweeping beside another.
        if (!(await holdLease(database.db, { ...lease, now }))) return deleted;
        const batch = await rule.sweep({ now, limit: this.#options.batchRows, after });
        deleted[rule.name] = (deleted[rule.name] ?? 0) + batch.deleted;
        if (batch.deleted > 0) this.#deleted?.inc({ table: rule.name }, batch.deleted);
        after = batch.next;
        // A turn of the event loop between batches: what waits for the database goes first.
        await nextTurn();
      } while (after !== null);
      const swept = deleted[rule.name] ?? 0;
      if (rowsBefore !== null && swept > 0 && swept >= Math.max(rowsBefore, 1) * VACUUM_SHARE) {
        if (this.#stopping || !(await holdLease(database.db, { ...lease, now: clock.now() }))) return deleted;
        await this.#vacuum(rule);
      }
    }
    return deleted;
  }

  /** How many rows the rule's table held at its last VACUUM or ANALYZE (PostgreSQL's estimate; 0 if never counted); null on SQLite, which reuses free pages without one. */
  async #rowsCounted(rule: RetentionRule): Promise<number | null> {
    const { database } = this.#deps;
    if (database.dialect !== 'postgres') return null;
    const { rows } = await sql<{ n: number | null }>`
      select reltuples::float8 as n from pg_class where oid = to_regclass(${rule.name})`.execute(database.db);
    return Math.max(Number(rows[0]?.n ?? 0), 0);
  }

  /**
   * A plain VACUUM (never FULL: that locks the table against every read and
   * write) of the tables the rule deleted from: it marks the deleted rows'
   * space free, and takes no lock the API's or the dispatcher's statements
   * wait for. The tables keep their size on disk (vacuum_truncate off,
   * migration 0034): the next month's rows fill it again.
   */
  async #vacuum(rule: RetentionRule): Promise<void> {
    const { database } = this.#deps;
    for (const table of rule.tables ?? [rule.name]) {
      if (this.#stopping) return;
      await sql`vacuum ${sql.table(table)}`.execute(database.db);
      this.#vacuums?.inc({ table });
    }
  }

  /** Stops after the batch in progress and gives the lease back. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#firstPassOver();
    await this.#running;
    await releaseLease(this.#deps.database.db, { name: RETENTION_LEASE, holder: this.#options.holder }).catch(() => {});
  }
}

/**
 * The batch of a rule whose rows go once a time column of theirs is before
 * `cutoffIso`: the oldest `limit` of them, found through that column's index
 * (migration 0028) and deleted by key in one statement. `also` narrows which
 * of them may go. Rows deleted are gone, so the next batch needs no cursor:
 * `next` is null once a batch found fewer than `limit`.
 */
export async function deleteBeforeBatch(
  db: QueryExecutorProvider,
  rule: { table: string; key: string; time: string; cutoffIso: string; limit: number; also?: RawBuilder<unknown> },
): Promise<{ deleted: number; next: string | null }> {
  const { table, key, time } = rule;
  const also = rule.also ? sql`and ${rule.also}` : sql``;
  const result = await sql`
    delete from ${sql.table(table)} where ${sql.ref(key)} in (
      select ${sql.ref(key)} from ${sql.table(table)}
      where ${sql.ref(time)} < ${rule.cutoffIso} ${also}
      order by ${sql.ref(time)} limit ${rule.limit}
    )`.execute(db);
  const deleted = Number(result.numAffectedRows ?? 0n);
  return { deleted, next: deleted < rule.limit ? null : 'more' };
}
