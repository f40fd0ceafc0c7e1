import type { Product, ProductInput, ProductPatch } from '@feira/contract';
import type { Kysely, Selectable } from 'kysely';
import { notFound, PlatformError } from '../core/platform-error.js';
import type { Schema } from '../storage/schema.js';
import { fromCents, toCents } from './money.js';
import { appendEvent } from './outbox.js';
import { inTransaction, isUniqueViolation, type RecordWriteDeps } from './record-write.js';

export type ProductRow = Selectable<Schema['products']>;

/** The read path of a product: the webhook `data.resource` (SPEC-DECISIONS W7). */
export const productPath = (id: string) => `/seller/v1/products/${id}`;

export function presentProduct(row: ProductRow): Product {
  return {
    id: row.id,
    sku: row.sku,
    title: row.title,
    price: fromCents(row.price_cents),
    stock: Number(row.stock),
    dimensions: { depth: row.depth_cm, height: row.height_cm, width: row.width_cm, weight: row.weight_g },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function duplicateSku(): PlatformError {
  return new PlatformError('CONFLICT', {
    message: 'A product with this sku already exists in this tenant',
    details: [{ field: 'sku', location: 'body', message: 'must be unique per tenant', slug: 'DUPLICATE_VALUE' }],
  });
}

export async function findProduct(db: Kysely<Schema>, tenantId: string, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function findProductBySku(db: Kysely<Schema>, tenantId: string, sku: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId).where('sku', '=', sku).executeTakeFirst();
}

/** Creates a product and its CREATION event in one transaction. A duplicate sku is a 409. */
export async function insertProduct(
  db: Kysely<Schema>,
  tenantId: string,
  input: ProductInput,
  deps: RecordWriteDeps,
): Promise<Product> {
  const now = deps.clock.now().toISOString();
  const row: ProductRow = {
    id: deps.random.uuid(),
    tenant_id: tenantId,
    sku: input.sku,
    title: input.title,
    price_cents: toCents(input.price, 'price'),
    stock: input.stock,
    depth_cm: input.dimensions.depth,
    height_cm: input.dimensions.height,
    width_cm: input.dimensions.width,
    weight_g: input.dimensions.weight,
    created_at: now,
    updated_at: now,
  };
  try {
    await inTransaction(db, async (trx) => {
      await trx.insertInto('products').values(row).execute();
      await appendEvent(
        trx,
        { tenantId, topic: 'product', status: 'CREATION', recordId: row.id, resource: productPath(row.id) },
        deps,
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateSku();
    throw error;
  }
  return presentProduct(row);
}

/** Changes the fields given and appends an UPDATE event; another tenant's product is a 404. */
export async function updateProduct(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  patch: ProductPatch,
  deps: RecordWriteDeps,
): Promise<Product> {
  try {
    return await inTransaction(db, async (trx) => {
      const current = await findProduct(trx, tenantId, id);
      if (!current) throw notFound('Product');
      const next: ProductRow = {
        ...current,
        ...(patch.sku !== undefined && { sku: patch.sku }),
        ...(patch.title !== undefined && { title: patch.title }),
        ...(patch.price !== undefined && { price_cents: toCents(patch.price, 'price') }),
        ...(patch.stock !== undefined && { stock: patch.stock }),
        ...(patch.dimensions !== undefined && {
          depth_cm: patch.dimensions.depth,
          height_cm: patch.dimensions.height,
          width_cm: patch.dimensions.width,
          weight_g: patch.dimensions.weight,
        }),
        updated_at: deps.clock.now().toISOString(),
      };
      const { id: _id, tenant_id: _tenant, created_at: _created, ...changes } = next;
      await trx.updateTable('products').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
      await appendEvent(trx, { tenantId, topic: 'product', status: 'UPDATE', recordId: id, resource: productPath(id) }, deps);
      return presentProduct(next);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateSku();
    throw error;
  }
}

/** Deletes a product and appends a DELETION event; another tenant's product is a 404. */
export async function deleteProduct(db: Kysely<Schema>, tenantId: string, id: string, deps: RecordWriteDeps): Promise<void> {
  await inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('products').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound('Product');
    await appendEvent(trx, { tenantId, topic: 'product', status: 'DELETION', recordId: id, resource: productPath(id) }, deps);
  });
}
