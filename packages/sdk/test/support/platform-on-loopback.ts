import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrateToLatest, openDatabase } from '@feira/platform';
import { createTestPlatform, type TestDatabaseTarget, type TestPlatform, testConfig } from '@feira/platform/testing';
import pg from 'pg';

/**
 * Works around a race in the platform's PostgreSQL test databases: Kysely's
 * Migrator looks for its own tables in every schema unless
 * `migrationTableSchema` is set, so a parallel test's schema makes it skip
 * creating them in this one ("relation kysely_migration_lock does not exist").
 * Reported; until storage/migrate.ts passes the schema, this opens the fresh
 * schema with Kysely's two bookkeeping tables already in it, then migrates.
 */
function isolatedTarget(target: TestDatabaseTarget): TestDatabaseTarget {
  const url = process.env.FEIRA_TEST_DATABASE_URL;
  if (target.dialect !== 'postgres' || !url) return target;
  return {
    ...target,
    open: async () => {
      const schema = `feira_sdk_test_${randomBytes(6).toString('hex')}`;
      const sql = async (text: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(text);
        } finally {
          await client.end();
        }
      };
      await sql(
        `create schema ${schema};
         create table ${schema}.kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null);
         create table ${schema}.kysely_migration_lock (id varchar(255) primary key, is_locked integer not null default 0);`,
      );
      const database = await openDatabase(url, { searchPath: schema, poolSize: 5 });
      await migrateToLatest(database);
      return {
        ...database,
        close: async () => {
          await database.close();
          await sql(`drop schema if exists ${schema} cascade`);
        },
      };
    },
  };
}

export interface PlatformOnLoopback extends TestPlatform {
  /** http://127.0.0.1:<port>: also the configured {base_url} and {auth_url}, so links and `iss` point here. */
  url: string;
}

/**
 * The real platform on a real socket (127.0.0.1, port 0). The socket is bound
 * first so its address can be the configured public URL: the SDK follows
 * `meta.links.next` exactly, so those links must point at this server.
 */
export async function startPlatformOnLoopback(
  target: TestDatabaseTarget,
  options: { outboundCa?: string } = {},
): Promise<PlatformOnLoopback> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => (handle ? handle(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const platform = await createTestPlatform(isolatedTarget(target), {
    config: testConfig({ publicUrl: url, authUrl: url }),
    ...(options.outboundCa ? { outboundCa: options.outboundCa } : {}),
  });
  handle = (req, res) => platform.app.routing(req, res);
  return {
    ...platform,
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await platform.close();
    },
  };
}
