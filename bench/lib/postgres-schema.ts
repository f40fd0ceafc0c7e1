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
