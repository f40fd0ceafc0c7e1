import { type Kysely, sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import { hashPassword } from '../core/hashing.js';
import type { Random } from '../core/random.js';
import { refuseField } from '../core/refusals.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Schema } from '../storage/schema.js';

/** A store of a seller. Tokens carry tenant ids (spec-notes I9). */
export interface Tenant {
  id: string;
  sellerId: string;
  name: string;
  createdAt: string;
}

/** A seller account as the admin API shows it: never the password hash. */
export interface Seller {
  id: string;
  name: string;
  login: string;
  createdAt: string;
  tenants: Tenant[];
}

/** What the login page needs to check a password; only the identity provider reads `passwordHash`. */
export interface SellerCredentials {
  id: string;
  name: string;
  login: string;
  passwordHash: string;
}

export interface NewSeller {
  name: string;
  login: string;
  /** In clear; hashed with scrypt here and never stored or logged as given. */
  password: string;
  tenants: Array<{ name: string }>;
}

export interface AccountDeps {
  clock: Clock;
  random: Random;
}

/**
 * Creates a seller and its tenants in one transaction. Tenant ids are UUID v4
 * from the injected randomness. A login already taken is a 409 `CONFLICT`,
 * also when two requests race (the unique index decides).
 */
export async function createSeller(db: Kysely<Schema>, input: NewSeller, deps: AccountDeps): Promise<Seller> {
  const id = deps.random.uuid();
  const createdAt = deps.clock.now().toISOString();
  const passwordHash = await hashPassword(input.password, deps.random.bytes(16));
  const tenants: Tenant[] = input.tenants.map((tenant) => ({
    id: deps.random.uuid(),
    sellerId: id,
    name: tenant.name,
    createdAt,
  }));
  const loginTaken = () => refuseField('ACCOUNT_LOGIN_TAKEN', 'login', 'body');
  if (await findSellerByLogin(db, input.login)) throw loginTaken();
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('sellers')
        .values({ id, name: input.name, login: input.login, password_hash: passwordHash, created_at: createdAt })
        .execute();
      for (const tenant of tenants) {
        await trx
          .insertInto('tenants')
          .values({ id: tenant.id, seller_id: id, name: tenant.name, created_at: createdAt })
          .execute();
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw loginTaken();
    throw error;
  }
  return { id, name: input.name, login: input.login, createdAt, tenants };
}

export async function findSellerById(db: Kysely<Schema>, id: string): Promise<Seller | undefined> {
  const row = await db
    .selectFrom('sellers')
    .select(['id', 'name', 'login', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return { id: row.id, name: row.name, login: row.login, createdAt: row.created_at, tenants: await listTenantsOfSeller(db, id) };
}

export async function sellerExists(db: Kysely<Schema>, id: string): Promise<boolean> {
  const row = await db.selectFrom('sellers').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** Changes a seller's name, login or password hash (already hashed); a login taken by another seller fails the unique index. */
export async function updateSellerAccount(
  db: Kysely<Schema>,
  id: string,
  set: Partial<{ name: string; login: string; password_hash: string }>,
): Promise<void> {
  if (Object.keys(set).length === 0) return;
  await db.updateTable('sellers').set(set).where('id', '=', id).execute();
}

/** Deletes the seller; its stores and everything kept per store go with it by ON DELETE CASCADE. */
export async function deleteSellerAccount(db: Kysely<Schema>, id: string): Promise<void> {
  await db.deleteFrom('sellers').where('id', '=', id).execute();
}

/** The query the admin list of sellers pages through (list engine): never the password hash. */
export function sellerListQuery(db: Kysely<Schema>) {
  return db.selectFrom('sellers').select(['id', 'name', 'login', 'created_at']);
}

/** For the login page: the seller with its password hash, by exact login. */
export async function findSellerByLogin(db: Kysely<Schema>, login: string): Promise<SellerCredentials | undefined> {
  const row = await db
    .selectFrom('sellers')
    .select(['id', 'name', 'login', 'password_hash'])
    .where('login', '=', login)
    .executeTakeFirst();
  return row && { id: row.id, name: row.name, login: row.login, passwordHash: row.password_hash };
}

/** The seller's stores, oldest first, then by name (the tenant chooser of spec-notes I9 lists them). */
export async function listTenantsOfSeller(db: Kysely<Schema>, sellerId: string): Promise<Tenant[]> {
  const rows = await db
    .selectFrom('tenants')
    .select(['id', 'seller_id', 'name', 'created_at'])
    .where('seller_id', '=', sellerId)
    .orderBy('created_at')
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, sellerId: row.seller_id, name: row.name, createdAt: row.created_at }));
}

/** A store with its seller's name: what the operator finds and opens (D157). */
export interface StoreWithSeller {
  id: string;
  name: string;
  sellerId: string;
  sellerName: string;
  createdAt: string;
}

function storesWithSellers(db: Kysely<Schema>) {
  return db
    .selectFrom('tenants')
    .innerJoin('sellers', 'sellers.id', 'tenants.seller_id')
    .select([
      'tenants.id as id',
      'tenants.name as name',
      'tenants.seller_id as sellerId',
      'sellers.name as sellerName',
      'tenants.created_at as createdAt',
    ]);
}

/** One store with its seller's name, by id. */
export async function findStoreWithSeller(db: Kysely<Schema>, id: string): Promise<StoreWithSeller | undefined> {
  return storesWithSellers(db).where('tenants.id', '=', id).executeTakeFirst();
}

/**
 * The stores the operator's search box names (D157): the store whose id it is,
 * then those whose name contains it (any case; % and _ literal), by name, at
 * most `limit`; `more` when there were more.
 */
export async function searchStores(
  db: Kysely<Schema>,
  q: string,
  limit: number,
): Promise<{ stores: StoreWithSeller[]; more: boolean }> {
  const pattern = `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const [byId, byName] = await Promise.all([
    findStoreWithSeller(db, q),
    storesWithSellers(db)
      .where(sql<boolean>`lower(tenants.name) like lower(${pattern}) escape '\\'`)
      .orderBy('tenants.name')
      .orderBy('tenants.id')
      .limit(limit + 1)
      .execute(),
  ]);
  const stores = [...(byId ? [byId] : []), ...byName.filter((store) => store.id !== byId?.id)];
  return { stores: stores.slice(0, limit), more: stores.length > limit };
}

/** True when a store (tenant) of this id exists: the one look-up other capabilities make before naming a store. */
export async function tenantExists(db: Kysely<Schema>, id: string): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function insertTenant(db: Kysely<Schema>, tenant: Tenant): Promise<void> {
  await db
    .insertInto('tenants')
    .values({ id: tenant.id, seller_id: tenant.sellerId, name: tenant.name, created_at: tenant.createdAt })
    .execute();
}

/** Renames one of the seller's stores; false when the seller has no such store. */
export async function renameTenant(db: Kysely<Schema>, sellerId: string, tenantId: string, name: string): Promise<boolean> {
  const result = await db
    .updateTable('tenants')
    .set({ name })
    .where('id', '=', tenantId)
    .where('seller_id', '=', sellerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes one store of the seller (its records, subscriptions, deliveries and shipping settings follow by ON DELETE CASCADE); false when it is not theirs. */
export async function deleteTenant(db: Kysely<Schema>, sellerId: string, tenantId: string): Promise<boolean> {
  const result = await db.deleteFrom('tenants').where('id', '=', tenantId).where('seller_id', '=', sellerId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function countSellers(db: Kysely<Schema>): Promise<number> {
  const row = await db
    .selectFrom('sellers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The tenants of several sellers in one query (a page of the admin seller list), by seller id. */
export async function listTenantsOfSellers(db: Kysely<Schema>, sellerIds: string[]): Promise<Map<string, Tenant[]>> {
  const bySeller = new Map<string, Tenant[]>(sellerIds.map((id) => [id, []]));
  if (sellerIds.length === 0) return bySeller;
  const rows = await db
    .selectFrom('tenants')
    .select(['id', 'seller_id', 'name', 'created_at'])
    .where('seller_id', 'in', sellerIds)
    .orderBy('created_at')
    .orderBy('name')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    bySeller.get(row.seller_id)?.push({ id: row.id, sellerId: row.seller_id, name: row.name, createdAt: row.created_at });
  }
  return bySeller;
}
