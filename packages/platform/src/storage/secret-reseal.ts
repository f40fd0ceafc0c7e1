import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { SecretBox } from '../core/secret-box.js';
import { holdLease, releaseLease } from './background-lease.js';
import type { Database } from './database.js';

/**
 * A column holding values sealed with the server's SecretBox, declared by the
 * capability that owns its table (its index exports it); the re-seal only
 * runs over it.
 */
export interface SealedColumn {
  table: string;
  /** The table's primary key (one text column): the re-seal walks it in order. */
  key: string;
  column: string;
}

/** How far the values of one column are from the current secret. */
export interface SealedColumnStatus {
  table: string;
  column: string;
  /** Values present (NULLs are not counted). */
  sealed: number;
  /** Of them, sealed under another secret than the current one: what the re-seal still has to do. */
  remaining: number;
}

export interface SecretResealOptions {
  columns: readonly SealedColumn[];
  /** This process's name in the lease row. */
  holder: string;
  /** Values re-sealed per statement batch. */
  batchRows: number;
  intervalMs: number;
  log?: { info(obj: object, message: string): void; error(obj: object, message: string): void };
}

/** The lease row every re-sealing process asks for: one of them re-seals at a time. */
const SECRET_RESEAL_LEASE = 'secret-reseal';
const LEASE_MS = 60_000;

/** The value of `column` was sealed under another secret (compared as text: a kid may hold `_`, a LIKE wildcard). */
function notUnder(column: string, prefix: string) {
  return sql`substr(${sql.ref(column)}, 1, ${sql.lit(prefix.length)}) <> ${prefix}`;
}

/** Every column's count of values and of those not under the current secret (`feira keys status`). */
export async function sealedStatus(
  database: Database,
  box: Pick<SecretBox, 'currentPrefix'>,
  columns: readonly SealedColumn[],
): Promise<SealedColumnStatus[]> {
  const statuses: SealedColumnStatus[] = [];
  for (const { table, column } of columns) {
    const { rows } = await sql<{ sealed: string | number; remaining: string | number }>`
      select count(${sql.ref(column)}) as sealed,
             count(case when ${notUnder(column, box.currentPrefix)} then 1 end) as remaining
      from ${sql.table(table)}`.execute(database.db);
    statuses.push({ table, column, sealed: Number(rows[0]?.sealed ?? 0), remaining: Number(rows[0]?.remaining ?? 0) });
  }
  return statuses;
}

/**
 * Seals again, under the current server secret, every value sealed under a
 * previous one (D112), in the background and in bounded batches: each batch
 * reads `batchRows` values past a cursor on the key, opens and re-seals them
 * in memory, and writes each back only if it is still the value read (a
 * request that changed it meanwhile wins). A turn of the event loop between
 * batches lets requests go first. When several processes run it on one
 * database, the lease row lets one of them work at a time. It runs only in a
 * process given previous secrets; once a pass finds nothing left, the old
 * secret may be dropped (docs/deploy.md "Rotating keys").
 */
export class SecretResealer {
  readonly #deps: { database: Database; clock: Clock; box: SecretBox };
  readonly #options: SecretResealOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #stopping = false;

  constructor(deps: { database: Database; clock: Clock; box: SecretBox }, options: SecretResealOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  start(): void {
    const tick = () => {
      this.#timer = undefined;
      this.#running = this.resealOnce()
        .catch((error: unknown) => this.#options.log?.error({ err: error }, 'secret re-seal failed; the next pass tries again'))
        .finally(() => {
          if (!this.#stopping) this.#timer = setTimeout(tick, this.#options.intervalMs).unref();
        });
    };
    this.#timer = setTimeout(tick, 0).unref();
  }

  /**
   * One pass over every column if this process gets the lease: how many values it re-sealed and how
   * many it could not open (sealed under a secret this process was not given); null when another
   * process holds the lease.
   */
  async resealOnce(): Promise<{ resealed: number; unreadable: number } | null> {
    const { database, clock, box } = this.#deps;
    const lease = { name: SECRET_RESEAL_LEASE, holder: this.#options.holder, ttlMs: LEASE_MS };
    if (!(await holdLease(database.db, { ...lease, now: clock.now() }))) return null;
    let resealed = 0;
    let unreadable = 0;
    for (const { table, key, column } of this.#options.columns) {
      let after = '';
      for (;;) {
        if (this.#stopping) return { resealed, unreadable };
        if (!(await holdLease(database.db, { ...lease, now: clock.now() }))) return { resealed, unreadable };
        const { rows } = await sql<{ id: string; sealed: string }>`
          select ${sql.ref(key)} as id, ${sql.ref(column)} as sealed from ${sql.table(table)}
          where ${sql.ref(key)} > ${after} and ${sql.ref(column)} is not null
            and ${notUnder(column, box.currentPrefix)}
          order by ${sql.ref(key)} limit ${this.#options.batchRows}`.execute(database.db);
        for (const row of rows) {
          let plaintext: string;
          try {
            plaintext = box.open(row.sealed);
          } catch {
            unreadable += 1;
            continue;
          }
          const written = await sql`
            update ${sql.table(table)} set ${sql.ref(column)} = ${box.seal(plaintext)}
            where ${sql.ref(key)} = ${row.id} and ${sql.ref(column)} = ${row.sealed}`.execute(database.db);
          resealed += Number(written.numAffectedRows ?? 0n);
        }
        if (rows.length < this.#options.batchRows) break;
        after = (rows[rows.length - 1] as { id: string }).id;
        await nextTurn();
      }
    }
    if (resealed > 0 || unreadable > 0) {
      const remaining = (await sealedStatus(database, box, this.#options.columns)).reduce((sum, s) => sum + s.remaining, 0);
      // Counts only: never a value, sealed or not.
      this.#options.log?.info(
        { resealed, unreadable, remaining, secret: box.kid },
        remaining === 0
          ? 'secret re-seal: every sealed value is under the current server secret; the previous one may be dropped'
          : 'secret re-seal: values sealed again under the current server secret',
      );
    }
    return { resealed, unreadable };
  }

  /** Stops after the batch in progress and gives the lease back. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    await releaseLease(this.#deps.database.db, { name: SECRET_RESEAL_LEASE, holder: this.#options.holder }).catch(() => {});
  }
}
