import { type Compilable, CompiledQuery, type InsertQueryBuilder, type Kysely, type RawBuilder } from 'kysely';
import { BoundedCache } from '../core/bounded-cache.js';
import type { DialectName } from './database.js';

/**
 * Statements whose text depends only on how many rows they carry (a
 * multi-row INSERT, an `IN (…)` list): Kysely builds and compiles each such
 * shape once per dialect, and every later batch binds a flat array of values
 * to the same text (`CompiledQuery.raw`). Building the query afresh per batch
 * parsed one object per row and visited one node per value: on the webhook
 * drain that was a large share of the platform's main thread (docs/decisions.md
 * D12). On SQLite the text then finds its prepared statement in the
 * connection's cache (sqlite-statement-cache.ts), as the built query's
 * identical text did.
 *
 * `compile(db, rows)` must give a statement taking `fixed + rows × perRow`
 * parameters in the order the caller binds them; a call binding another
 * number of values is refused rather than run.
 */
export class StatementShapes<DB> {
  /** Batches of every length up to 500 are possible; the texts of the lengths met last are kept. */
  readonly #texts = new BoundedCache<string, string>(64);

  constructor(
    private readonly what: string,
    private readonly compile: (db: Kysely<DB>, rows: number) => CompiledQuery,
    private readonly perRow: number,
    private readonly fixed = 0,
  ) {}

  /** The statement for `rows` rows with these values bound. */
  query(db: Kysely<DB>, dialect: DialectName, rows: number, parameters: readonly unknown[]): CompiledQuery {
    const expected = this.fixed + rows * this.perRow;
    if (parameters.length !== expected)
      throw new Error(`${this.what}: ${parameters.length} values bound for ${rows} rows, expected ${expected}`);
    const key = `${dialect}:${rows}`;
    let text = this.#texts.get(key);
    if (text === undefined) {
      const compiled = this.compile(db, rows);
      if (compiled.parameters.length !== expected)
        throw new Error(
          `${this.what}: its ${rows}-row statement takes ${compiled.parameters.length} values, expected ${expected}`,
        );
      text = compiled.sql;
      this.#texts.set(key, text);
    }
    return CompiledQuery.raw(text, parameters as unknown[]);
  }
}

/**
 * A multi-row INSERT into `table` binding `columns` per row, in that order (so
 * a batch's values are its rows' values one after the other). `constants` are
 * written into every row as they are (literals, not bound); `finish` adds what
 * follows the rows (`ON CONFLICT`, `RETURNING`).
 */
export function multiRowInsert<DB>(
  what: string,
  table: keyof DB & string,
  columns: readonly string[],
  options: {
    constants?: Readonly<Record<string, RawBuilder<unknown>>>;
    // biome-ignore lint/suspicious/noExplicitAny: the builder's row types play no part in a compiled text
    finish?: (insert: InsertQueryBuilder<DB, any, any>) => Compilable;
  } = {},
): StatementShapes<DB> {
  const template = { ...Object.fromEntries(columns.map((column) => [column, 0])), ...options.constants };
  return new StatementShapes<DB>(
    what,
    (db, rows) => {
      const insert = db.insertInto(table).values(Array.from({ length: rows }, () => template) as never);
      return (options.finish ? options.finish(insert) : insert).compile();
    },
    columns.length,
  );
}

/** A value a {@link CompiledOnce} statement takes at each run: it stands in the built query for the value. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A statement whose text is the same at every run and only its values change
 * (a hot path's write or read): built with the query builder and compiled once
 * per dialect, then each run binds its values to that text. Building and
 * compiling a query afresh at every call cost more on the token path than
 * running it did on SQLite (D165, D166). `build` receives `slot(name)` for every
 * value that changes from run to run; a statement that binds any value of its
 * own is refused on its first compilation (write constants in the SQL, with
 * `sql.lit`), so a per-run value that was not made a slot cannot be run
 * with the value of the first call.
 */
export class CompiledOnce<DB, Values extends Record<string, unknown>, Row> {
  readonly #texts = new Map<DialectName, { sql: string; names: Array<keyof Values> }>();

  constructor(
    private readonly what: string,
    private readonly build: (db: Kysely<DB>, slot: <K extends keyof Values & string>(name: K) => Values[K]) => Compilable<Row>,
  ) {}

  /** The statement with `values` bound, compiled by `db` on this dialect's first call. */
  query(db: Kysely<DB>, dialect: DialectName, values: Values): CompiledQuery<Row> {
    let compiled = this.#texts.get(dialect);
    if (!compiled) {
      const query = this.build(db, (name) => new Slot(name) as never).compile();
      const names = query.parameters.map((parameter) => {
        if (!(parameter instanceof Slot)) throw new Error(`${this.what}: the statement binds a value of its own`);
        return parameter.name as keyof Values;
      });
      compiled = { sql: query.sql, names };
      this.#texts.set(dialect, compiled);
    }
    return CompiledQuery.raw(
      compiled.sql,
      compiled.names.map((name) => values[name]),
    ) as CompiledQuery<Row>;
  }
}
