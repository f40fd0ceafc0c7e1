import { Product, ProductInput, ProductPatch, type Product as ProductRecord } from '@feira/contract';
import { refuseField } from '../../core/refusals.js';
import { defineListResource } from '../../lists/list-resource.js';
import { fromCents, toCents } from '../money.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../record-kind.js';
import { SEED_LAST_NAMES } from '../seed-records-values.js';

export type ProductRow = RowOf<'products'>;

function presentProduct(row: ProductRow): ProductRecord {
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

function dimensionColumns(dimensions: ProductInput['dimensions']) {
  return {
    depth_cm: dimensions.depth,
    height_cm: dimensions.height,
    width_cm: dimensions.width,
    weight_g: dimensions.weight,
  };
}

export const productList = defineListResource<ProductRow, ProductRecord>({
  name: 'products',
  fields: {
    ...COMMON_LIST_FIELDS,
    sku: { column: 'sku', type: 'string' },
    title: { column: 'title', type: 'string' },
    price: { column: 'price_cents', type: 'money' },
    stock: { column: 'stock', type: 'integer' },
    'dimensions.depth': { column: 'depth_cm', type: 'number' },
    'dimensions.height': { column: 'height_cm', type: 'number' },
    'dimensions.width': { column: 'width_cm', type: 'number' },
    'dimensions.weight': { column: 'weight_g', type: 'number' },
  },
  sorts: ['sku', 'title', 'price', 'stock', 'created_at', 'updated_at'],
  defaultSort: [{ field: 'created_at', direction: 'asc' }],
  present: presentProduct,
});

const SEED_WORDS = ['Camiseta', 'Caneca', 'Mochila', 'Tênis', 'Relógio', 'Fone', 'Luminária', 'Garrafa', 'Agenda', 'Boné'];

/** Products (topic `product`): the catalogue the storefront quotes against; the sku is unique per tenant. */
export const productKind: RecordKind<'products', ProductRecord, ProductInput, ProductPatch> = {
  table: 'products',
  topic: 'product',
  scope: 'open:portfolio:read',
  readPath: '/seller/v1/products',
  label: 'Product',
  labelKey: 'records.kind.products',
  openApiTag: 'Products of the store (scope `open:portfolio:read`)',
  demoCount: 60,
  schemas: { record: Product, input: ProductInput, patch: ProductPatch },
  list: productList,
  search: [{ field: 'sku', match: 'prefix' }],
  present: presentProduct,
  create(input) {
    return {
      sku: input.sku,
      title: input.title,
      price_cents: toCents(input.price, 'price'),
      stock: input.stock,
      ...dimensionColumns(input.dimensions),
    };
  },
  patch(_current, patch) {
    return {
      ...(patch.sku !== undefined && { sku: patch.sku }),
      ...(patch.title !== undefined && { title: patch.title }),
      ...(patch.price !== undefined && { price_cents: toCents(patch.price, 'price') }),
      ...(patch.stock !== undefined && { stock: patch.stock }),
      ...(patch.dimensions !== undefined && dimensionColumns(patch.dimensions)),
    };
  },
  uniqueViolation() {
    return refuseField('RECORD_SKU_TAKEN', 'sku', 'body');
  },
  seed: {
    columns: ['sku', 'title', 'price_cents', 'stock', 'depth_cm', 'height_cm', 'width_cm', 'weight_g'],
    fill(v, at, i, { next, pick, run }) {
      v[at] = `SKU-${run}-${String(i).padStart(7, '0')}`;
      v[at + 1] = `${pick(SEED_WORDS)} ${pick(SEED_LAST_NAMES)} ${i}`;
      v[at + 2] = 500 + Math.floor(next() * 50000);
      v[at + 3] = Math.floor(next() * 500);
      v[at + 4] = 5 + Math.floor(next() * 60);
      v[at + 5] = 2 + Math.floor(next() * 40);
      v[at + 6] = 5 + Math.floor(next() * 50);
      v[at + 7] = 50 + Math.floor(next() * 5000);
    },
  },
  trigger: {
    create: (tag) => ({
      sku: `TRIGGER-${tag}`,
      title: 'Triggered product',
      price: 10,
      stock: 5,
      dimensions: { depth: 10, height: 10, width: 10, weight: 500 },
    }),
    update: { stock: 4 },
  },
};
