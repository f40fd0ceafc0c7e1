import type { Kysely } from 'kysely';
import { findSellerById, type Seller } from '../accounts/seller-repository.js';
import type { Clock } from '../core/clock.js';
import { hashPassword } from '../core/hashing.js';
import { notFound, PlatformError } from '../core/platform-error.js';
import type { Random } from '../core/random.js';
import { endSellerSessions } from '../identity/login-session.js';
import { deleteFreightTable } from '../shipping/freight/freight-table-store.js';
import type { Database } from '../storage/database.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Schema } from '../storage/schema.js';

/**
 * Updates and deletions of accounts (the operator console and the admin
 * API). Each states what happens to the account's tokens, sessions and
 * subscriptions, and does it in one transaction where the database allows:
 *
 * - **Seller, new password**: every login session of the seller ends (they
 *   sign in again); tokens already issued to apps stay valid (the seller did
 *   not revoke the apps).
 * - **Seller, deleted**: every token family of the seller is revoked (access
 *   and refresh tokens refused at once), every session ends, consents and
 *   unused authorization codes go; the seller's stores go with every record,
 *   subscription, delivery, shipping setting and freight table of theirs.
 * - **Client app, deleted**: every token family of the app is revoked, its
 *   consents and codes go, its subscriptions and their deliveries go (no
 *   event is sent to it again), then the app.
 */

const loginTaken = () =>
  new PlatformError('CONFLICT', {
    message: 'A seller with this login already exists',
    details: [{ field: 'login', location: 'body', message: 'is already taken', slug: 'DUPLICATE_VALUE' }],
  });

export interface SellerChanges {
  name?: string;
  login?: string;
  password?: string;
}

export async function updateSeller(
  db: Kysely<Schema>,
  id: string,
  changes: SellerChanges,
  deps: { clock: Clock; random: Random },
): Promise<{ seller: Seller; endedSessions: number }> {
  const existing = await findSellerById(db, id);
  if (!existing) throw notFound('Seller');
  const set: Partial<{ name: string; login: string; password_hash: string }> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.login !== undefined && changes.login !== existing.login) {
    const taken = await db.selectFrom('sellers').select('id').where('login', '=', changes.login).executeTakeFirst();
    if (taken) throw loginTaken();
    set.login = changes.login;
  }
  if (changes.password !== undefined) set.password_hash = await hashPassword(changes.password, deps.random.bytes(16));
  let endedSessions = 0;
  try {
    await db.transaction().execute(async (trx) => {
      if (Object.keys(set).length > 0) await trx.updateTable('sellers').set(set).where('id', '=', id).execute();
      if (set.password_hash !== undefined) {
        endedSessions = await endSellerSessions(trx, id, { now: deps.clock.now(), reason: 'password_changed' });
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw loginTaken();
    throw error;
  }
  return { seller: (await findSellerById(db, id)) as Seller, endedSessions };
}

export interface SellerDeletion {
  stores: number;
  revokedGrants: number;
  endedSessions: number;
}

export async function deleteSeller(database: Database, id: string, now: Date): Promise<SellerDeletion> {
  const { db } = database;
  const tenants = await db.selectFrom('tenants').select('id').where('seller_id', '=', id).execute();
  const seller = await db.selectFrom('sellers').select('id').where('id', '=', id).executeTakeFirst();
  if (!seller) throw notFound('Seller');
  // Freight tables are keyed by owner, not a foreign key: removed first, the way the freight API does.
  const tables = await db
    .selectFrom('freight_tables')
    .select(['owner', 'table_id'])
    .where('owner', 'in', tenants.length > 0 ? tenants.map((t) => t.id) : ['\u0001none'])
    .execute();
  for (const table of tables) await deleteFreightTable(database, table.owner, table.table_id);
  return db.transaction().execute(async (trx) => {
    const nowIso = now.toISOString();
    const revoked = await trx
      .updateTable('token_families')
      .set({ revoked_at: nowIso, revoked_reason: 'seller_deleted' })
      .where('seller_id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const endedSessions = await endSellerSessions(trx, id, { now, reason: 'seller_deleted' });
    await trx.deleteFrom('consents').where('seller_id', '=', id).execute();
    await trx.deleteFrom('authorization_codes').where('seller_id', '=', id).execute();
    // Stores, their records, subscriptions, deliveries and shipping settings follow by ON DELETE CASCADE.
    await trx.deleteFrom('sellers').where('id', '=', id).execute();
    return { stores: tenants.length, revokedGrants: Number(revoked.numUpdatedRows), endedSessions };
  });
}

export async function addStore(
  db: Kysely<Schema>,
  sellerId: string,
  name: string,
  deps: { clock: Clock; random: Random },
): Promise<{ id: string; name: string }> {
  const seller = await db.selectFrom('sellers').select('id').where('id', '=', sellerId).executeTakeFirst();
  if (!seller) throw notFound('Seller');
  const id = deps.random.uuid();
  await db.insertInto('tenants').values({ id, seller_id: sellerId, name, created_at: deps.clock.now().toISOString() }).execute();
  return { id, name };
}

export async function renameStore(db: Kysely<Schema>, sellerId: string, tenantId: string, name: string): Promise<void> {
  const result = await db
    .updateTable('tenants')
    .set({ name })
    .where('id', '=', tenantId)
    .where('seller_id', '=', sellerId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw notFound('Store');
}

export interface ClientDeletion {
  revokedGrants: number;
  subscriptions: number;
}

export async function deleteClient(db: Kysely<Schema>, id: string, now: Date): Promise<ClientDeletion> {
  return db.transaction().execute(async (trx) => {
    const client = await trx.selectFrom('clients').select('id').where('id', '=', id).executeTakeFirst();
    if (!client) throw notFound('Client');
    const revoked = await trx
      .updateTable('token_families')
      .set({ revoked_at: now.toISOString(), revoked_reason: 'client_deleted' })
      .where('client_id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await trx.deleteFrom('consents').where('client_id', '=', id).execute();
    await trx.deleteFrom('authorization_codes').where('client_id', '=', id).execute();
    // Deliveries and their attempts follow the subscriptions by ON DELETE CASCADE.
    const subscriptions = await trx.deleteFrom('webhook_subscriptions').where('client_id', '=', id).executeTakeFirst();
    await trx.deleteFrom('clients').where('id', '=', id).execute();
    return { revokedGrants: Number(revoked.numUpdatedRows), subscriptions: Number(subscriptions.numDeletedRows) };
  });
}
