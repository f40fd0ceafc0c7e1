import type { MigrationFactory } from './helpers.js';

export const identity: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('signing_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('alg', 'text', (c) => c.notNull())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .execute();
    await db.schema
      .createTable('token_families')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('seller_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('revoked_reason', 'text')
      .execute();
    await db.schema
      .createTable('authorization_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('family_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('seller_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('tenants', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema
      .createTable('refresh_tokens')
      .addColumn('jti', 'text', (c) => c.primaryKey())
      .addColumn('family_id', 'text', (c) => c.notNull())
      .addColumn('parent_jti', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addColumn('superseded_at', 'text')
      .execute();
    await db.schema.createIndex('refresh_tokens_parent_idx').on('refresh_tokens').column('parent_jti').execute();
    await db.schema
      .createTable('consents')
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('seller_id', 'text', (c) => c.notNull())
      .addColumn('tenant_key', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('granted_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('consents_pk', ['client_id', 'seller_id', 'tenant_key', 'scope'])
      .execute();
    await db.schema
      .createTable('login_attempts')
      .addColumn('login', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_failure_at', 'text', (c) => c.notNull())
      .addColumn('blocked_until', 'text')
      .execute();
  },
});
