import type { Kysely } from 'kysely';
import {
  clientExists,
  deleteClientApp,
  deleteSellerAccount,
  deleteTenant,
  findSellerById,
  findSellerByLogin,
  insertTenant,
  listTenantsOfSeller,
  renameTenant,
  type Seller,
  sellerExists,
  updateSellerAccount,
} from '../accounts/index.js';
import type { Clock } from '../core/clock.js';
import { hashPassword } from '../core/hashing.js';
import type { Random } from '../core/random.js';
import { refuse, refuseField } from '../core/refusals.js';
import {
  deleteConsentsAndCodes,
  endSellerSessions,
  revokeGrant,
  storeConsents,
  withdrawStoreConsent,
} from '../identity/index.js';
import { deleteFreightTablesOf } from '../shipping/index.js';
import type { Database } from '../storage/database.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Schema } from '../storage/schema.js';
import { deleteClientSubscriptions } from '../webhooks/index.js';

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
 * - **Store, deleted** (D84): its records, webhook subscriptions and their
 *   deliveries, shipping settings and freight tables go, and every app's
 *   consent for it; the seller and their other stores stay. Tokens are not
 *   revoked (one may cover the seller's other stores too): a call naming the
 *   deleted store finds no store.
 * - **Client app, deleted**: every token family of the app is revoked, its
 *   consents and codes go, its subscriptions and their deliveries go (no
 *   event is sent to it again), then the app.
 */

const loginTaken = () => refuseField('ACCOUNT_LOGIN_TAKEN', 'login', 'body');

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
  if (!existing) throw refuse('ADMIN_SELLER_NOT_FOUND');
  const set: Partial<{ name: string; login: string; password_hash: string }> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.login !== undefined && changes.login !== existing.login) {
    if (await findSellerByLogin(db, changes.login)) throw loginTaken();
    set.login = changes.login;
  }
  if (changes.password !== undefined) set.password_hash = await hashPassword(changes.password, deps.random.bytes(16));
  let endedSessions = 0;
  try {
    await db.transaction().execute(async (trx) => {
      await updateSellerAccount(trx, id, set);
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
  const tenants = await listTenantsOfSeller(db, id);
  if (!(await sellerExists(db, id))) throw refuse('ADMIN_SELLER_NOT_FOUND');
  // Freight tables are keyed by owner, not a foreign key: removed first, the way the freight API does.
  await deleteFreightTablesOf(
    database,
    tenants.map((tenant) => tenant.id),
  );
  return db.transaction().execute(async (trx) => {
    const revokedGrants = await revokeGrant({ db: trx, now }, { sellerId: id }, 'seller_deleted');
    const endedSessions = await endSellerSessions(trx, id, { now, reason: 'seller_deleted' });
    await deleteConsentsAndCodes(trx, { sellerId: id });
    // Stores, their records, subscriptions, deliveries and shipping settings follow by ON DELETE CASCADE.
    await deleteSellerAccount(trx, id);
    return { stores: tenants.length, revokedGrants, endedSessions };
  });
}

export async function addStore(
  db: Kysely<Schema>,
  sellerId: string,
  name: string,
  deps: { clock: Clock; random: Random },
): Promise<{ id: string; name: string }> {
  if (!(await sellerExists(db, sellerId))) throw refuse('ADMIN_SELLER_NOT_FOUND');
  const id = deps.random.uuid();
  await insertTenant(db, { id, sellerId, name, createdAt: deps.clock.now().toISOString() });
  return { id, name };
}

export async function renameStore(db: Kysely<Schema>, sellerId: string, tenantId: string, name: string): Promise<void> {
  if (!(await renameTenant(db, sellerId, tenantId, name))) throw refuse('ACCOUNT_STORE_NOT_FOUND');
}

export interface StoreDeletion {
  /** Apps whose consent for the store was withdrawn. */
  apps: number;
}

export async function deleteStore(database: Database, sellerId: string, tenantId: string): Promise<StoreDeletion> {
  const { db } = database;
  const stores = await listTenantsOfSeller(db, sellerId);
  if (!stores.some((store) => store.id === tenantId)) throw refuse('ACCOUNT_STORE_NOT_FOUND');
  // Freight tables are keyed by owner, not a foreign key: removed first, as for a deleted seller.
  await deleteFreightTablesOf(database, [tenantId]);
  return db.transaction().execute(async (trx) => {
    const apps = [...new Set((await storeConsents(trx, sellerId, tenantId)).map((consent) => consent.clientId))];
    for (const clientId of apps) await withdrawStoreConsent(trx, { clientId, sellerId, tenantId });
    // Records, subscriptions with their deliveries and shipping settings follow by ON DELETE CASCADE.
    await deleteTenant(trx, sellerId, tenantId);
    return { apps: apps.length };
  });
}

export interface ClientDeletion {
  revokedGrants: number;
  subscriptions: number;
}

export async function deleteClient(db: Kysely<Schema>, id: string, now: Date): Promise<ClientDeletion> {
  return db.transaction().execute(async (trx) => {
    if (!(await clientExists(trx, id))) throw refuse('ADMIN_CLIENT_NOT_FOUND');
    const revokedGrants = await revokeGrant({ db: trx, now }, { clientId: id }, 'client_deleted');
    await deleteConsentsAndCodes(trx, { clientId: id });
    // Deliveries and their attempts follow the subscriptions by ON DELETE CASCADE.
    const subscriptions = await deleteClientSubscriptions(trx, id);
    await deleteClientApp(trx, id);
    return { revokedGrants, subscriptions };
  });
}
