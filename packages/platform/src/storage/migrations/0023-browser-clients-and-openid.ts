import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

function redirectOrigins(uris: string[]): Set<string> {
  return new Set(uris.filter((uri) => URL.canParse(uri)).map((uri) => new URL(uri).origin));
}

/**
 * Public clients, CORS origins and OpenID Connect (docs/decisions.md D45–D47):
 * - `clients.token_endpoint_auth_method`: how the client authenticates at the
 *   token endpoint; `none` marks a public client (a browser or mobile app, no secret);
 * - `client_origins`: each client's browser origins (its redirect URIs' origins),
 *   one row per pair so a preflight is one indexed lookup by origin;
 * - `authorization_codes.nonce` and `auth_time`: what the ID token of an
 *   `openid` request carries (OpenID Connect Core §2, §3.1.2.1).
 */
export const browserClientsAndOpenid: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .alterTable('clients')
      .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull().defaultTo('client_secret_basic'))
      .execute();
    await db.schema
      .createTable('client_origins')
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('client_origins_pkey', ['origin', 'client_id'])
      .execute();
    await db.schema.createIndex('client_origins_client').on('client_origins').column('client_id').execute();
    await db.schema.alterTable('authorization_codes').addColumn('nonce', 'text').execute();
    await db.schema.alterTable('authorization_codes').addColumn('auth_time', 'text').execute();
    // The clients registered before get their redirect URIs' origins (parsed here: SQL has no URL parser).
    const { rows } = await sql<{ id: string; redirect_uris: string }>`select id, redirect_uris from clients`.execute(db);
    for (const client of rows) {
      for (const origin of redirectOrigins(JSON.parse(client.redirect_uris) as string[])) {
        await sql`insert into client_origins (origin, client_id) values (${origin}, ${client.id})`.execute(db);
      }
    }
  },
});
