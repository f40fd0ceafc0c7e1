import type { AppliedSort } from '@feira/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderKind } from '../records/kinds/orders.js';
import { productKind } from '../records/kinds/products.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { DEFAULT_OPERATORS, type ListResource } from './list-resource.js';

/** What the properties read of a list: its fields and sorts (every record kind's list fits, whatever its rows). */
type RecordListResource = Omit<ListResource<unknown, unknown>, 'present'>;

import { createOrders, createProducts, getJson, pathOf } from '../../test/lists/list-fixtures.js';
import { listInMemory, type ModelFilter, type ModelSort, valueAt } from './test-support/in-memory-list.js';

// A property-based test. Random valid and
// invalid query strings never produce a 500, and the results of valid ones
// always equal a plain in-memory filter/sort of the same data (spec-notes L1–L8).

interface Collection {
  path: string;
  resource: RecordListResource;
  records: () => Array<{ id: string }>;
}

/** Query values for one field, drawn near the data so filters select something. */
function valueFor(records: Array<{ id: string }>, field: string, resource: RecordListResource): fc.Arbitrary<string> {
  const declared = resource.fields[field];
  if (!declared) throw new Error(field);
  const present = records.map((r) => valueAt(r, field)).filter((v) => v !== null);
  const existing = present.length > 0 ? fc.constantFrom(...present) : fc.constant('x');
  switch (declared.type) {
    case 'enum':
      return fc.constantFrom(...(declared.values ?? []));
    case 'id':
      return fc.oneof(existing.map(String), fc.uuid());
    case 'string':
      return fc.oneof(
        existing.map(String),
        // ASCII substrings of real values (L7: like is case-insensitive; only ASCII case is folded the same everywhere).
        existing.chain((v) => {
          const ascii = String(v).replace(/[^\x20-\x7e]/g, '');
          return fc
            .tuple(fc.nat(ascii.length), fc.integer({ min: 1, max: 4 }), fc.boolean())
            .map(([at, n, upper]) => (upper ? ascii.slice(at, at + n).toUpperCase() : ascii.slice(at, at + n)) || 'a');
        }),
        fc.string({ unit: fc.constantFrom('a', 'C', '%', '_', '-', '0', 'S', 'K', 'U', ' '), minLength: 1, maxLength: 5 }),
      );
    case 'integer':
      return fc.oneof(existing.map(String), fc.integer({ min: -3, max: 15 }).map(String));
    case 'number':
      return fc.oneof(existing.map(String), fc.constantFrom('0', '5.5', '12.5', '20', '250', '-1'));
    case 'money':
      return fc.oneof(
        existing.map((v) => String(v)),
        fc.integer({ min: -500, max: 20000 }).map((cents) => (cents / 100).toFixed(cents % 3 === 0 ? 0 : 2)),
      );
    case 'datetime':
      return fc.oneof(
        existing.map(String),
        existing.map((v) => String(v).slice(0, 10)),
        fc
          .tuple(existing, fc.integer({ min: -300, max: 300 }))
          .map(([v, s]) => new Date(new Date(String(v)).getTime() + s * 1000).toISOString().replace('.000Z', 'Z')),
      );
  }
}

function filterArbitrary(collection: Collection): fc.Arbitrary<ModelFilter> {
  const { resource } = collection;
  return fc.constantFrom(...Object.keys(resource.fields)).chain((field) => {
    const declared = resource.fields[field];
    const operators = declared?.operators ?? DEFAULT_OPERATORS[declared?.type ?? 'string'];
    const value = valueFor(collection.records(), field, resource);
    return fc
      .constantFrom(...operators)
      .chain((operator) =>
        (operator === 'in' ? fc.array(value, { minLength: 1, maxLength: 3 }).map((vs) => vs.join(',')) : value)
          .filter((raw) => operator !== 'in' || !raw.split(',').some((v) => v.length === 0))
          .map((raw) => ({ field, operator, raw })),
      );
  });
}

function sortArbitrary(resource: RecordListResource): fc.Arbitrary<ModelSort[]> {
  return fc.uniqueArray(
    fc.record({ field: fc.constantFrom(...resource.sorts, 'id'), direction: fc.constantFrom('asc' as const, 'desc' as const) }),
    { selector: (s) => s.field, maxLength: 3 },
  );
}

const parameterOf = (f: ModelFilter) => `${f.field}${f.operator === 'eq' ? '' : `__${f.operator}`}`;

function queryString(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** Sorts as the engine applies them: the request's, up to and including id, or the declared default. */
function effectiveSorts(resource: RecordListResource, sorts: ModelSort[]): AppliedSort[] {
  if (sorts.length === 0) return [...resource.defaultSort];
  const idAt = sorts.findIndex((s) => s.field === 'id');
  return idAt === -1 ? sorts : sorts.slice(0, idAt + 1);
}

describe.each(testDatabaseTargets())('list property tests on $dialect', (target) => {
  let platform: TestPlatform;
  let token: string;
  const data = { products: [] as Array<{ id: string }>, orders: [] as Array<{ id: string }> };
  const collections: Collection[] = [
    { path: '/seller/v1/products', resource: productKind.list, records: () => data.products },
    { path: '/v1/orders', resource: orderKind.list, records: () => data.orders },
  ];

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    const { tenantIds } = await platform.createSeller();
    const tenantId = tenantIds[0] as string;
    data.products = await createProducts(platform, tenantId, 60);
    data.orders = await createOrders(platform, tenantId, 45);
    token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:portfolio:read', 'open:order-order:read'] });
  }, 120_000);
  afterAll(() => platform?.close());

  it.each(collections.map((c) => [c.path, c] as const))(
    'L1–L8: a valid offset query on %s returns exactly the in-memory filter/sort/page of the data',
    async (_path, collection) => {
      const { resource } = collection;
      await fc.assert(
        fc.asyncProperty(
          fc.array(filterArbitrary(collection), { maxLength: 3 }),
          sortArbitrary(resource),
          fc.option(fc.integer({ min: 1, max: 130 }), { nil: undefined }),
          fc.option(fc.integer({ min: 0, max: 70 }), { nil: undefined }),
          async (filters, sorts, limit, offset) => {
            const pairs: Array<[string, string]> = filters.map((f) => [parameterOf(f), f.raw]);
            if (sorts.length > 0) pairs.push(['_sort', sorts.map((s) => `${s.field}:${s.direction}`).join(',')]);
            if (limit !== undefined) pairs.push(['_limit', String(limit)]);
            if (offset !== undefined) pairs.push(['_offset', String(offset)]);
            const { status, body } = await getJson(platform, token, `${collection.path}?${queryString(pairs)}`);
            expect(status, JSON.stringify(body)).toBe(200);
            const expected = listInMemory(collection.records(), resource.fields, filters, effectiveSorts(resource, sorts));
            const applied = Math.min(limit ?? 20, resource.maxLimit ?? 100);
            const from = offset ?? 0;
            expect(body.results.map((r: { id: string }) => r.id)).toEqual(expected.slice(from, from + applied).map((r) => r.id));
            expect(body.meta.page).toEqual({ limit: applied, offset: from, count: body.results.length, max_limit: 100 });
            if (resource.massive) expect(body.meta).not.toHaveProperty('total');
            else expect(body.meta.total).toBe(expected.length);
          },
        ),
        { numRuns: 120 },
      );
    },
    120_000,
  );

  it.each(collections.map((c) => [c.path, c] as const))(
    'L4: walking a valid query on %s with cursors yields the in-memory order, each record once',
    async (_path, collection) => {
      const { resource } = collection;
      await fc.assert(
        fc.asyncProperty(
          fc.array(filterArbitrary(collection), { maxLength: 2 }),
          sortArbitrary(resource),
          fc.integer({ min: 1, max: 25 }),
          async (filters, sorts, limit) => {
            const pairs: Array<[string, string]> = filters.map((f) => [parameterOf(f), f.raw]);
            if (sorts.length > 0) pairs.push(['_sort', sorts.map((s) => `${s.field}:${s.direction}`).join(',')]);
            pairs.push(['_paginate', 'cursor'], ['_limit', String(limit)]);
            const seen: string[] = [];
            let url: string | null = `${collection.path}?${queryString(pairs)}`;
            for (let page = 0; url && page < 200; page++) {
              const { status, body } = await getJson(platform, token, url);
              expect(status, JSON.stringify(body)).toBe(200);
              seen.push(...body.results.map((r: { id: string }) => r.id));
              url = body.meta.links.next ? pathOf(body.meta.links.next) : null;
            }
            const expected = listInMemory(collection.records(), resource.fields, filters, effectiveSorts(resource, sorts));
            expect(seen).toEqual(expected.map((r) => r.id));
          },
        ),
        { numRuns: 40 },
      );
    },
    120_000,
  );

  it.each(collections.map((c) => [c.path, c] as const))(
    'L6 / L9: random, mostly invalid query strings on %s never produce a 500: 200 or a 422 in the error shape',
    async (_path, collection) => {
      const names = [
        ...Object.keys(collection.resource.fields),
        '_limit',
        '_offset',
        '_paginate',
        '_next_token',
        '_sort',
        'Status',
        '__proto__',
        'constructor',
        '',
      ];
      const name = fc.oneof(
        fc.constantFrom(...names),
        fc
          .tuple(
            fc.constantFrom(...names),
            fc.constantFrom('__like', '__in', '__gt', '__gte', '__lt', '__lte', '__eq', '__x', '___', '.'),
          )
          .map(([n, s]) => n + s),
        fc.string({ maxLength: 12 }),
      );
      const value = fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 10 }),
        fc.constantFrom(
          'cursor',
          '-1',
          '1e3',
          '0x10',
          'NaN',
          'Infinity',
          '9999999999999999999',
          '1.005',
          '2026-02-30',
          ',',
          "'; drop table orders; --",
          '%',
          '\\',
        ),
        fc.integer().map(String),
        fc.double().map(String),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 5 }), async (pairs) => {
          const response = await platform.app.inject({
            method: 'GET',
            url: `${collection.path}?${queryString(pairs)}`,
            headers: { authorization: `Bearer ${token}` },
          });
          expect([200, 422], response.body).toContain(response.statusCode);
          const body = response.json();
          if (response.statusCode === 422) {
            expect(body).toMatchObject({ message: expect.any(String), slug: 'UNPROCESSABLE_ENTITY' });
            expect(body.details.length).toBeGreaterThan(0);
            for (const detail of body.details) expect(detail).toMatchObject({ location: 'query', field: expect.any(String) });
          } else {
            expect(Array.isArray(body.results)).toBe(true);
          }
        }),
        { numRuns: 300 },
      );
      // The tables are intact whatever was sent.
      expect((await getJson(platform, token, `${collection.path}?_limit=1`)).status).toBe(200);
    },
    120_000,
  );
});
