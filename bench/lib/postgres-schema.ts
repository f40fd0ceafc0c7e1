import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh schema on the PostgreSQL server for one scenario variant; `drop()` removes it and everything in it. */
export interface ScratchSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Null when the server cannot be reached (the variant is then reported as not available, with the reason). */
export async function postgresUnreachable(url: string): Promise<string | null> {
  try {
    await withClient(url, (c) => c.query('select 1'));
    return null;
  } catch (error) {
    return `PostgreSQL not reachable (${error instanceof Error ? error.message : String(error)})`;
  }
}

export async function createScratchSchema(url: string): Promise<ScratchSchema> {
  const schema = `feira_bench_${randomBytes(6).toString('hex')}`;
  await withClient(url, (c) => c.query(`create schema ${schema}`));
  return { url, schema, drop: () => withClient(url, (c) => c.query(`drop schema if exists ${schema} cascade`)).then(() => {}) };
}

/**
 * A fresh database on the server, for a variant whose figures VACUUM decides: VACUUM may remove only
 * rows no open transaction of the same database can still see, and other clients of a shared server
 * keep transactions open in theirs (a schema in a shared database would measure them).
 */
export async function createScratchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `feira_bench_${randomBytes(6).toString('hex')}`;
  await withClient(url, (c) => c.query(`create database ${name}`));
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    drop: () => withClient(url, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}

/**
 * The server settings a reader needs beside PostgreSQL figures: its version, and whether autovacuum
 * runs (a CI image may turn it off; then no table is vacuumed or analyzed during a run, as none would
 * be on a production server).
 */
export async function postgresServerSummary(url: string): Promise<string> {
  const names = ['server_version', 'autovacuum', 'fsync', 'synchronous_commit', 'shared_buffers'];
  const { rows } = await withClient(url, (c) =>
    c.query<{ name: string; setting: string }>(
      'select name, current_setting(name) as setting from pg_settings where name = any($1) order by name',
      [names],
    ),
  );
  const setting = new Map(rows.map((r) => [r.name, r.setting]));
  return `PostgreSQL ${setting.get('server_version') ?? '?'}, ${names
    .slice(1)
    .map((n) => `${n} ${setting.get(n) ?? '?'}`)
    .join(', ')}`;
}

/**
 * WAL flushes the whole server has made so far (`pg_stat_wal.wal_sync`, PostgreSQL 14 and later; null
 * before): read before and after a phase, the difference is how many commits waited for the disk.
 */
export async function walSyncs(url: string): Promise<number | null> {
  try {
    const { rows } = await withClient(url, (c) => c.query<{ wal_sync: string }>('select wal_sync from pg_stat_wal'));
    return rows[0] ? Number(rows[0].wal_sync) : null;
  } catch {
    return null;
  }
}
