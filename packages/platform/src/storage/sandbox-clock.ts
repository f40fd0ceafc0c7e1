import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Schema } from './schema.js';

const ROW = 'platform';

/**
 * The platform's time in sandbox mode: the system clock (or a test's) plus an
 * offset the operator moves forward (`POST /admin/v1/clock/advance`, `feira
 * clock advance`, the operator console), as a payment platform's test clocks
 * let an integrator fast-forward. Everything that waits on time reads the
 * platform's one Clock, so it all follows: token and code expiry, the refresh
 * grace, the webhook secret grace, the retry schedule and auto-disable,
 * retention.
 *
 * The offset lives in the database, so every process on it shares one time:
 * the process that moves it knows at once, the others read it again every
 * `refreshMs` (and at start). It only grows: a clock that went back would let
 * an expired code or token work again.
 */
export class SandboxClock implements Clock {
  readonly #base: Clock;
  readonly #db: Kysely<Schema>;
  #offsetMs = 0;
  #timer: NodeJS.Timeout | undefined;

  private constructor(base: Clock, db: Kysely<Schema>) {
    this.#base = base;
    this.#db = db;
  }

  /** Reads the shared offset, then (with `refreshMs` > 0) again every `refreshMs` until `stop()`. */
  static async open(db: Kysely<Schema>, base: Clock, options: { refreshMs: number }): Promise<SandboxClock> {
    const clock = new SandboxClock(base, db);
    await clock.refresh();
    if (options.refreshMs > 0) {
      clock.#timer = setInterval(() => void clock.refresh().catch(() => {}), options.refreshMs).unref();
    }
    return clock;
  }

  now(): Date {
    return new Date(this.#base.now().getTime() + this.#offsetMs);
  }

  /** How far the platform's time is ahead of the system clock, in milliseconds. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Reads the offset another process may have moved. */
  async refresh(): Promise<void> {
    const row = await this.#db.selectFrom('sandbox_clock').select('offset_ms').where('id', '=', ROW).executeTakeFirst();
    if (row) this.#offsetMs = Math.max(this.#offsetMs, Number(row.offset_ms));
  }

  /** Moves the shared time forward by `ms` (one atomic update, so two advances at once add up). */
  async advance(ms: number): Promise<void> {
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new RangeError('a sandbox clock only moves forward');
    const updatedAt = new Date().toISOString();
    const row = await this.#db
      .insertInto('sandbox_clock')
      .values({ id: ROW, offset_ms: ms, updated_at: updatedAt })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({ offset_ms: eb('sandbox_clock.offset_ms', '+', ms), updated_at: updatedAt })),
      )
      .returning('offset_ms')
      .executeTakeFirstOrThrow();
    this.#offsetMs = Math.max(this.#offsetMs, Number(row.offset_ms));
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
