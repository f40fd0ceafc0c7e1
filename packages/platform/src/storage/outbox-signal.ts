import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ASYNC_COMMIT_SQL } from './async-commit.js';
import { type DatabaseLog, lostConnectionFields } from './lost-connection.js';

/**
 * "The outbox has new events": lets the webhook dispatcher start a pass the
 * moment an event commits instead of at its next poll (with polling alone an
 * event waited for the next poll, where a Redis queue delivers at once:
 * docs/decisions.md D17). Polling stays as the fallback: a lost signal delays, never loses.
 *
 * Writers call `notify()` after their transaction commits (record-write.ts
 * `inTransaction`): a listener woken earlier would find nothing yet.
 *
 * - SQLite: one process writes, so the signal is in-process: listeners are
 *   called on the next turn of the event loop.
 * - PostgreSQL: listeners in the writing process are called the same way, and
 *   every other process hears of it through `pg_notify('feira_outbox',
 *   '<schema> <sender>')`, sent by the writer as a statement of its own after
 *   the commit, with `synchronous_commit` off (a lost signal only delays), one
 *   at a time (commits meanwhile share the next one). It used to be sent by a
 *   trigger inside the writing transaction (migration 0013, dropped by 0017):
 *   PostgreSQL holds one lock per database from a notifying commit's start to
 *   its end, WAL flush included, so every writer queued behind every other one
 *   (`pgbench`, 10 connections inserting outbox rows: 2,000–2,300 commits/s
 *   with the trigger, 6,400–6,500 without). It is not sent at all while a
 *   dispatcher of the writing process has room for the events: the others
 *   would only race it for them. The first subscriber opens one
 *   dedicated connection that LISTENs, and ignores its own process's
 *   notifications (its listeners were called already); it reconnects by itself
 *   and signals once reconnected, since notifications sent meanwhile are lost.
 *   Through PgBouncer in transaction mode LISTEN hears nothing (docs/deploy.md),
 *   and the dispatcher is back to polling.
 */
export interface OutboxSignal {
  /** Call after a commit that added events: wakes this process's listeners, and (PostgreSQL) every other process's. */
  notify(): void;
  /**
   * Calls `listener` after events were written (several writes may share one
   * call); returns the unsubscribe. `hasRoom` tells whether the listener can
   * take new events now: while one in the writing process can, PostgreSQL's
   * signal does not wake the other processes (their dispatchers would only
   * race it for the same events).
   */
  subscribe(listener: () => void, hasRoom?: () => boolean): () => void;
  /** Whether signals can arrive now (PostgreSQL: the LISTEN connection is up). */
  listening(): boolean;
  /** PostgreSQL: the server process of the LISTEN connection (diagnostics, and tests that cut it); else null. */
  listenerPid(): number | null;
  close(): Promise<void>;
}

/** The channel writers notify on; the payload is the outbox table's schema and the sending process's tag. */
export const OUTBOX_CHANNEL = 'feira_outbox';
const RECONNECT_MS = 1_000;

class Listeners {
  /** Each listener, with how it tells whether it has room for new events (if it does). */
  readonly #listeners = new Map<() => void, (() => boolean) | undefined>();
  #scheduled = false;

  get size(): number {
    return this.#listeners.size;
  }

  add(listener: () => void, hasRoom?: () => boolean): () => void {
    this.#listeners.set(listener, hasRoom);
    return () => this.#listeners.delete(listener);
  }

  /** Whether a listener of this process can take new events now. */
  anyWithRoom(): boolean {
    for (const hasRoom of this.#listeners.values()) if (hasRoom?.()) return true;
    return false;
  }

  /** Calls every listener once on the next turn, however many signals came before it. */
  emit(): void {
    if (this.#scheduled || this.#listeners.size === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const listener of this.#listeners.keys()) listener();
    });
  }
}

class LocalOutboxSignal implements OutboxSignal {
  readonly #listeners = new Listeners();

  notify(): void {
    this.#listeners.emit();
  }

  subscribe(listener: () => void, hasRoom?: () => boolean): () => void {
    return this.#listeners.add(listener, hasRoom);
  }

  listening(): boolean {
    return true;
  }

  listenerPid(): number | null {
    return null;
  }

  async close(): Promise<void> {}
}

/** Sends the cross-process signal: one autocommit statement on a connection of the writer's pool. */
export type NotifyQuery = (text: string, values: unknown[]) => Promise<unknown>;

class PostgresOutboxSignal implements OutboxSignal {
  readonly #listeners = new Listeners();
  readonly #config: pg.ClientConfig;
  readonly #query: NotifyQuery;
  readonly #log: DatabaseLog | undefined;
  /** Names this process's notifications, so that its own LISTEN connection can ignore them. */
  readonly #sender = randomUUID();
  #client: pg.Client | null = null;
  /** The LISTEN connection's server process once it listens; null while there is none. */
  #pid: number | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  /** A NOTIFY is on its way; `#again` asks for one more after it (commits made while it was sent). */
  #sending = false;
  #again = false;

  constructor(config: pg.ClientConfig, query: NotifyQuery, log: DatabaseLog | undefined) {
    this.#config = config;
    this.#query = query;
    this.#log = log;
  }

  notify(): void {
    // This process's dispatcher first; the others only when it has no room (or this process runs none):
    // at 500 writes/s, a NOTIFY per write cost PostgreSQL about as much CPU as the writes themselves.
    const roomHere = this.#listeners.anyWithRoom();
    this.#listeners.emit();
    if (this.#closed || roomHere) return;
    if (this.#sending) {
      this.#again = true;
      return;
    }
    this.#sending = true;
    this.#query(`select ${ASYNC_COMMIT_SQL}, pg_notify($1, current_schema() || ' ' || $2)`, [OUTBOX_CHANNEL, this.#sender])
      // A signal that cannot be sent (the database is down) is a delay, not a loss: dispatchers poll.
      .catch(() => {})
      .finally(() => {
        this.#sending = false;
        if (this.#again) {
          this.#again = false;
          this.notify();
        }
      });
  }

  subscribe(listener: () => void, hasRoom?: () => boolean): () => void {
    const remove = this.#listeners.add(listener, hasRoom);
    if (!this.#client && !this.#retry) void this.#connect();
    return () => {
      remove();
      if (this.#listeners.size === 0) void this.#disconnect();
    };
  }

  listening(): boolean {
    return this.#pid !== null;
  }

  listenerPid(): number | null {
    return this.#pid;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#disconnect();
  }

  async #connect(): Promise<void> {
    if (this.#closed || this.#listeners.size === 0) return;
    const client = new pg.Client(this.#config);
    this.#client = client;
    const lost = (error?: unknown) => {
      if (this.#client !== client) return;
      // Said once per lost connection that had listened, not at every failed reconnect of an outage.
      if (this.#pid !== null && error !== undefined) {
        this.#log?.warn(lostConnectionFields(client, 'feira-listen', error), 'PostgreSQL connection lost');
      }
      this.#client = null;
      this.#pid = null;
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      const [session] = (
        await client.query<{ schema: string; pid: number }>('select current_schema() as schema, pg_backend_pid() as pid')
      ).rows;
      const schema = session?.schema;
      client.on('notification', (message) => {
        if (message.channel !== OUTBOX_CHANNEL || message.payload === undefined) return;
        // '<schema> <sender>'; a bare '<schema>' came from the trigger of migration 0013 (a version still running it).
        const space = message.payload.lastIndexOf(' ');
        const [from, sender] =
          space < 0 ? [message.payload, null] : [message.payload.slice(0, space), message.payload.slice(space + 1)];
        if (from === schema && sender !== this.#sender) this.#listeners.emit();
      });
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (this.#client !== client) return;
      this.#pid = session?.pid ?? null;
      // Events committed while no connection listened were not heard: look once now.
      this.#listeners.emit();
    } catch {
      lost();
    }
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#listeners.size === 0 || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#connect();
    }, RECONNECT_MS);
    this.#retry.unref();
  }

  async #disconnect(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    const client = this.#client;
    this.#client = null;
    this.#pid = null;
    await client?.end().catch(() => {});
  }
}

/** SQLite's signal: in process (one process writes a SQLite file). */
export function localOutboxSignal(): OutboxSignal {
  return new LocalOutboxSignal();
}

/**
 * PostgreSQL's signal: LISTEN on a connection made with `config` (the pool's
 * settings, search_path included); NOTIFY through `query` (the pool's).
 */
export function postgresOutboxSignal(config: pg.ClientConfig, query: NotifyQuery, log?: DatabaseLog): OutboxSignal {
  return new PostgresOutboxSignal(config, query, log);
}
