import pg from 'pg';

/**
 * "The outbox has new events": lets the webhook dispatcher start a pass the
 * moment an event commits instead of at its next poll (issue 22: commit→
 * delivery p99 was 0.2–0.6 s with polling alone, against a few ms for a Redis
 * queue). Polling stays as the fallback: a lost signal delays, never loses.
 *
 * - SQLite: one process writes, so the signal is in-process. `notify()` is
 *   called inside the writer's transaction; listeners are called on the next
 *   turn of the event loop, and whatever they query waits for the one
 *   connection, so they run after the commit (or find nothing after a rollback).
 * - PostgreSQL: a trigger on `outbox_events` (migration 0013) calls
 *   `pg_notify('feira_outbox', <schema>)`, which the server delivers at commit
 *   to every process listening, API and dispatchers alike. The first
 *   subscriber opens one dedicated connection that LISTENs; it reconnects by
 *   itself and signals once reconnected, since notifications sent meanwhile are lost.
 *   Through PgBouncer in transaction mode LISTEN hears nothing (docs/deploy.md),
 *   and the dispatcher is back to polling.
 */
export interface OutboxSignal {
  /** SQLite: wakes this process's listeners. PostgreSQL: nothing (the trigger notifies at commit). */
  notify(): void;
  /** Calls `listener` after events were written (several writes may share one call); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Whether signals can arrive now (PostgreSQL: the LISTEN connection is up). */
  listening(): boolean;
  /** PostgreSQL: the server process of the LISTEN connection (diagnostics, and tests that cut it); else null. */
  listenerPid(): number | null;
  close(): Promise<void>;
}

/** The channel the migration's trigger notifies on; the payload is the table's schema. */
export const OUTBOX_CHANNEL = 'feira_outbox';
const RECONNECT_MS = 1_000;

class Listeners {
  readonly #listeners = new Set<() => void>();
  #scheduled = false;

  get size(): number {
    return this.#listeners.size;
  }

  add(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls every listener once on the next turn, however many signals came before it. */
  emit(): void {
    if (this.#scheduled || this.#listeners.size === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const listener of this.#listeners) listener();
    });
  }
}

class LocalOutboxSignal implements OutboxSignal {
  readonly #listeners = new Listeners();

  notify(): void {
    this.#listeners.emit();
  }

  subscribe(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  listening(): boolean {
    return true;
  }

  listenerPid(): number | null {
    return null;
  }

  async close(): Promise<void> {}
}

class PostgresOutboxSignal implements OutboxSignal {
  readonly #listeners = new Listeners();
  readonly #config: pg.ClientConfig;
  #client: pg.Client | null = null;
  /** The LISTEN connection's server process once it listens; null while there is none. */
  #pid: number | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(config: pg.ClientConfig) {
    this.#config = config;
  }

  notify(): void {}

  subscribe(listener: () => void): () => void {
    const remove = this.#listeners.add(listener);
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
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#pid = null;
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      const [session] = (
        await client.query<{ schema: string; pid: number }>('select current_schema() as schema, pg_backend_pid() as pid')
      ).rows;
      const schema = session?.schema;
      client.on('notification', (message) => {
        if (message.channel === OUTBOX_CHANNEL && message.payload === schema) this.#listeners.emit();
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

/** PostgreSQL's signal: LISTEN on a connection made with `config` (the pool's settings, search_path included). */
export function postgresOutboxSignal(config: pg.ClientConfig): OutboxSignal {
  return new PostgresOutboxSignal(config);
}
