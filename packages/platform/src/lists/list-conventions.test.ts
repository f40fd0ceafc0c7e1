import type { Order, Product } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrders, createProducts, getJson, pathOf } from '../../test/lists/list-fixtures.js';
import { orderList } from '../records/kinds/orders.js';
import { productList } from '../records/kinds/products.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { listInMemory, type ModelFilter, type ModelSort } from './test-support/in-memory-list.js';

// The spec's "List operations (common conventions)" and "List response
// envelope", with spec-notes L1–L8, through the real routes on each database.

const PRODUCTS = '/seller/v1/products';
const ORDERS = '/v1/orders';

describe.each(testDatabaseTargets())('list conventions on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let token: string;
  let products: Product[];
  let orders: Order[];
  let nextFixture = 1000;

  const list = (url: string) => getJson(platform, token, url);
  const ids = (body: { results: Array<{ id: string }> }) => body.results.map((r) => r.id);
  const expectProducts = (filters: ModelFilter[], sorts: ModelSort[] = [{ field: 'created_at', direction: 'asc' }]) =>
    listInMemory(products, productList.fields, filters, sorts).map((p) => p.id);

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    const seller = await platform.createSeller();
    tenantId = seller.tenantIds[0] as string;
    // Another tenant's records must never show up in this tenant's lists.
    const other = await platform.createSeller();
    await createProducts(platform, other.tenantIds[0] as string, 3, 900);
    products = await createProducts(platform, tenantId, 180);
    orders = await createOrders(platform, tenantId, 40);
    token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:portfolio:read', 'open:order-order:read'] });
  }, 120_000);
  afterAll(() => platform?.close());

  describe('paging arithmetic (spec rule 5, L1, L2)', () => {
    it('spec rule 5: offset 0 and limit 1 return the first record', async () => {
      const { status, body } = await list(`${PRODUCTS}?_offset=0&_limit=1`);
      expect(status).toBe(200);
      expect(ids(body)).toEqual(expectProducts([]).slice(0, 1));
      expect(body.meta.page).toEqual({ limit: 1, offset: 0, count: 1, max_limit: 100 });
    });

    it('spec rule 5: offset 150 and limit 20 return records 151 onward', async () => {
      const { body } = await list(`${PRODUCTS}?_offset=150&_limit=20`);
      expect(ids(body)).toEqual(expectProducts([]).slice(150, 170));
      expect(body.meta.page).toEqual({ limit: 20, offset: 150, count: 20, max_limit: 100 });
    });

    it('spec "Limits" / L2: the default page is 20 records from offset 0', async () => {
      const { body } = await list(PRODUCTS);
      expect(ids(body)).toEqual(expectProducts([]).slice(0, 20));
      expect(body.meta.page).toEqual({ limit: 20, offset: 0, count: 20, max_limit: 100 });
    });

    it('spec Limits (page size ceiling) / L1: _limit above max_limit is clamped and meta.page.limit reports the limit applied', async () => {
      const { status, body } = await list(`${PRODUCTS}?_limit=5000`);
      expect(status).toBe(200);
      expect(body.meta.page.limit).toBe(100);
      expect(body.results).toHaveLength(100);
    });

    it.each(['0', '-1', '2.5', 'ten', ''])('L1: _limit=%s is a 422 naming _limit', async (value) => {
      const { status, body } = await list(`${PRODUCTS}?_limit=${value}`);
      expect(status).toBe(422);
      expect(body.details).toEqual([expect.objectContaining({ field: '_limit', location: 'query' })]);
    });

    it('spec "List response envelope": links are absolute URLs under the public URL carrying every parameter; total per L5', async () => {
      const { body } = await list(`${PRODUCTS}?stock__gte=2&_sort=price:desc&_limit=10&_offset=20`);
      const expected = expectProducts([{ field: 'stock', operator: 'gte', raw: '2' }], [{ field: 'price', direction: 'desc' }]);
      expect(body.meta.total).toBe(expected.length);
      expect(ids(body)).toEqual(expected.slice(20, 30));
      expect(body.meta.links).toEqual({
        previous: 'http://127.0.0.1:8080/seller/v1/products?stock__gte=2&_sort=price:desc&_limit=10&_offset=10',
        self: 'http://127.0.0.1:8080/seller/v1/products?stock__gte=2&_sort=price:desc&_limit=10&_offset=20',
        next: 'http://127.0.0.1:8080/seller/v1/products?stock__gte=2&_sort=price:desc&_limit=10&_offset=30',
      });
      const last = await list(`${PRODUCTS}?stock__gte=2&_limit=10&_offset=${expected.length - 3}`);
      expect(last.body.meta.links.next).toBeNull();
      expect(last.body.meta.page.count).toBe(3);
    });

    it('L8: meta echoes the filters with typed values and the sorts with id as the final tie-breaker', async () => {
      const { body } = await list(`${PRODUCTS}?price__gte=10.5&sku__in=SKU-001,SKU-002&title__like=caneca&_sort=stock:desc,sku`);
      expect(body.meta.filters).toEqual([
        { field: 'price', operator: 'gte', value: 10.5 },
        { field: 'sku', operator: 'in', value: ['SKU-001', 'SKU-002'] },
        { field: 'title', operator: 'like', value: 'caneca' },
      ]);
      expect(body.meta.sorts).toEqual([
        { field: 'stock', direction: 'desc' },
        { field: 'sku', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ]);
    });

    it('spec Limits (maximum offset) / L5 / L3: a massive collection has no total, and _offset above 5000 is a 422 pointing to cursor pagination', async () => {
      const { body } = await list(`${ORDERS}?_limit=5`);
      expect(body.meta).not.toHaveProperty('total');
      expect(body.meta.page.offset).toBe(0);
      expect((await list(`${ORDERS}?_offset=5000`)).status).toBe(200);
      const refused = await list(`${ORDERS}?_offset=5001`);
      expect(refused.status).toBe(422);
      expect(refused.body.details[0]).toMatchObject({ field: '_offset', location: 'query' });
      expect(refused.body.details[0].message).toContain('_paginate=cursor');
      // Ordinary collections have no ceiling.
      expect((await list(`${PRODUCTS}?_offset=5001`)).status).toBe(200);
    });
  });

  describe('filters: every operator on every field type (spec rules 1–3, L6, L7)', () => {
    const cases: Array<[string, ModelFilter[]]> = [
      ['string =', [{ field: 'sku', operator: 'eq', raw: 'SKU-007' }]],
      ['string __in', [{ field: 'sku', operator: 'in', raw: 'SKU-007,SKU-010,SKU-999' }]],
      [
        'string __gt/__lt (range)',
        [
          { field: 'sku', operator: 'gt', raw: 'SKU-010' },
          { field: 'sku', operator: 'lt', raw: 'SKU-020' },
        ],
      ],
      [
        'string __gte/__lte',
        [
          { field: 'title', operator: 'gte', raw: 'Caneca' },
          { field: 'title', operator: 'lte', raw: 'Mochila' },
        ],
      ],
      ['L7: string __like is case-insensitive contains', [{ field: 'title', operator: 'like', raw: 'CANECA' }]],
      ['money =', [{ field: 'price', operator: 'eq', raw: '12' }]],
      ['money __in', [{ field: 'price', operator: 'in', raw: '12,37.5,0.5' }]],
      [
        'money range',
        [
          { field: 'price', operator: 'gte', raw: '10' },
          { field: 'price', operator: 'lt', raw: '20.50' },
        ],
      ],
      ['integer =', [{ field: 'stock', operator: 'eq', raw: '3' }]],
      ['integer __gt', [{ field: 'stock', operator: 'gt', raw: '7' }]],
      ['integer __lte', [{ field: 'stock', operator: 'lte', raw: '1' }]],
      ['number (dotted path) =', [{ field: 'dimensions.depth', operator: 'eq', raw: '12.5' }]],
      ['number (dotted path) __in', [{ field: 'dimensions.weight', operator: 'in', raw: '100,300' }]],
      [
        'number range',
        [
          { field: 'dimensions.depth', operator: 'gt', raw: '10' },
          { field: 'dimensions.depth', operator: 'lte', raw: '15' },
        ],
      ],
      ['id =', [{ field: 'id', operator: 'eq', raw: 'placeholder' }]],
      [
        'spec rule 2: AND of several fields',
        [
          { field: 'stock', operator: 'gte', raw: '5' },
          { field: 'title', operator: 'like', raw: 'a' },
        ],
      ],
    ];
    it.each(cases)('%s', async (_name, filters) => {
      const concrete = filters.map((f) => (f.raw === 'placeholder' ? { ...f, raw: products[42]?.id as string } : f));
      const query = concrete.map((f) => `${f.field}${f.operator === 'eq' ? '' : `__${f.operator}`}=${encodeURIComponent(f.raw)}`);
      const { status, body } = await list(`${PRODUCTS}?${query.join('&')}&_limit=100`);
      expect(status).toBe(200);
      const expected = expectProducts(concrete);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(body)).toEqual(expected.slice(0, 100));
      expect(body.meta.total).toBe(expected.length);
    });

    it('datetime: dates and date-times with any offset, every operator, as a range', async () => {
      const a = products[30]?.created_at as string;
      const b = products[90]?.created_at as string;
      const shifted = new Date(a).toISOString().replace('Z', '+00:00');
      for (const filters of [
        [{ field: 'created_at', operator: 'eq', raw: shifted }],
        [{ field: 'created_at', operator: 'in', raw: `${a},${b}` }],
        [
          { field: 'created_at', operator: 'gte', raw: a },
          { field: 'created_at', operator: 'lt', raw: b },
        ],
        [{ field: 'created_at', operator: 'gt', raw: a.slice(0, 10) }],
        [{ field: 'updated_at', operator: 'lte', raw: b }],
      ] as ModelFilter[][]) {
        const query = filters.map(
          (f) => `${f.field}${f.operator === 'eq' ? '' : `__${f.operator}`}=${encodeURIComponent(f.raw)}`,
        );
        const { status, body } = await list(`${PRODUCTS}?${query.join('&')}&_limit=100`);
        expect(status).toBe(200);
        expect(ids(body)).toEqual(expectProducts(filters).slice(0, 100));
      }
      // A local time in another zone names the same instant.
      const inSaoPaulo = new Date(new Date(a).getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');
      expect(ids((await list(`${PRODUCTS}?created_at=${encodeURIComponent(inSaoPaulo)}`)).body)).toEqual(
        expectProducts([{ field: 'created_at', operator: 'eq', raw: a }]),
      );
    });

    it('L7: % and _ in a __like value are literal characters', async () => {
      const percent = await list(`${PRODUCTS}?title__like=${encodeURIComponent('100%')}&_limit=100`);
      expect(percent.body.results.length).toBeGreaterThan(0);
      expect(percent.body.results.every((p: Product) => p.title.includes('100%'))).toBe(true);
      const underscore = await list(`${PRODUCTS}?title__like=${encodeURIComponent('a_e')}&_limit=100`);
      expect(ids(underscore.body)).toEqual(expectProducts([{ field: 'title', operator: 'like', raw: 'a_e' }]).slice(0, 100));
      expect(underscore.body.results.every((p: Product) => p.title.toLowerCase().includes('a_e'))).toBe(true);
      // "%" alone must not match everything.
      const onlyPercent = await list(`${PRODUCTS}?title__like=%25&_limit=100`);
      expect(onlyPercent.body.meta.total).toBe(products.filter((p) => p.title.includes('%')).length);
    });

    it('spec rule 3: dotted paths on orders: customer.id, customer.name, shipping.origin.distribution_center.id, enum status', async () => {
      const checks: Array<[string, (o: Order) => boolean]> = [
        ['customer.id=cust-1', (o) => o.customer.id === 'cust-1'],
        ['customer.name__like=dias', (o) => o.customer.name.toLowerCase().includes('dias')],
        ['shipping.origin.distribution_center.id=dc-sp', (o) => o.shipping?.origin?.distribution_center.id === 'dc-sp'],
        ['status__in=new,shipped', (o) => ['new', 'shipped'].includes(o.status)],
        ['status=cancelled&total_amount__gte=20', (o) => o.status === 'cancelled' && o.total_amount >= 20],
      ];
      for (const [query, predicate] of checks) {
        const { status, body } = await list(`${ORDERS}?${query}&_limit=100&_sort=created_at:asc`);
        expect(status, query).toBe(200);
        const expected = listInMemory(
          orders.filter(predicate),
          orderList.fields,
          [],
          [{ field: 'created_at', direction: 'asc' }],
        );
        expect(expected.length, query).toBeGreaterThan(0);
        expect(ids(body), query).toEqual(expected.map((o) => o.id));
      }
    });

    it.each([
      ['unknown field', 'colour=red', 'colour'],
      ['upper-case field name (spec rule 1)', 'SKU=SKU-001', 'SKU'],
      ['unsupported operator for the type', 'stock__like=1', 'stock__like'],
      ['unknown operator', 'stock__between=1', 'stock__between'],
      ['integer with a letter', 'stock=1a', 'stock'],
      ['money with 3 decimals', 'price=1.005', 'price'],
      ['not a date', 'created_at__gt=yesterday', 'created_at__gt'],
      ['date without zone', 'created_at__gt=2026-01-15T10:00:00', 'created_at__gt'],
      ['impossible date', 'created_at=2026-13-45', 'created_at'],
      ['enum value not allowed', 'status=lost', 'status'],
      ['one bad value in __in', 'stock__in=1,x,3', 'stock__in'],
    ])('L6: %s is a 422 naming the parameter, location query', async (_name, query, field) => {
      const url = query.startsWith('status') ? `${ORDERS}?${query}` : `${PRODUCTS}?${query}`;
      const { status, body } = await list(url);
      expect(status).toBe(422);
      expect([body.message, body.slug]).toEqual(['Unprocessable entity', 'UNPROCESSABLE_ENTITY']);
      expect(body.details).toContainEqual(expect.objectContaining({ field, location: 'query' }));
    });
  });

  describe('date-time filters are read strictly (L6)', () => {
    // Date alone is lenient: it reads 2026-02-30 as March 2nd, so a bound would silently move.
    const impossible = [
      '2026-02-30',
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-06-31T10:00:00Z',
      '2026-00-10',
      '2026-01-00',
      '0000-01-01',
      '2026-01-15T24:00:00Z',
      '2026-01-15T23:60:00Z',
      '2026-01-15T23:59:60Z',
      '2026-01-15T10:00:00+24:00',
      '2026-01-15T10:00:00-03:60',
    ];
    const operators = ['', '__gt', '__gte', '__lt', '__lte', '__in'];

    it.each(impossible)('L6: created_at__gte=%s is a 422 naming created_at__gte, location query', async (value) => {
      const { status, body } = await list(`${ORDERS}?created_at__gte=${encodeURIComponent(value)}`);
      expect(status).toBe(422);
      expect(body).toMatchObject({ slug: 'UNPROCESSABLE_ENTITY', request_id: expect.any(String) });
      expect(body.details).toEqual([expect.objectContaining({ field: 'created_at__gte', location: 'query' })]);
    });

    it('L6: every date-time filter (created_at, updated_at; every operator; orders and products) refuses an impossible date', async () => {
      for (const path of [ORDERS, PRODUCTS]) {
        for (const field of ['created_at', 'updated_at']) {
          for (const operator of operators) {
            const value = operator === '__in' ? '2026-01-15,2026-02-30' : '2026-02-30T12:00:00Z';
            const parameter = `${field}${operator}`;
            const { status, body } = await list(`${path}?${parameter}=${encodeURIComponent(value)}`);
            expect(status, `${path} ${parameter}`).toBe(422);
            expect(body.details, `${path} ${parameter}`).toEqual([
              expect.objectContaining({ field: parameter, location: 'query' }),
            ]);
          }
        }
      }
    });

    it.each([
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['2000-02-29', '2000-02-29T00:00:00.000Z'],
      ['2026-12-31T23:59:59Z', '2026-12-31T23:59:59.000Z'],
      ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00.000Z'],
      ['2026-01-15T10:00:00-03:00', '2026-01-15T13:00:00.000Z'],
      ['2026-01-15T10:00:00.250Z', '2026-01-15T10:00:00.250Z'],
    ])('L6 / L8: a real date or date-time, %s, is accepted and echoed as the instant it names', async (value, instant) => {
      const { status, body } = await list(`${ORDERS}?created_at__gte=${encodeURIComponent(value)}`);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.meta.filters).toEqual([{ field: 'created_at', operator: 'gte', value: instant }]);
    });
  });

  describe('sorts (spec _sort, L6)', () => {
    it('several criteria apply left to right, asc by default, id breaking ties', async () => {
      const sorts: ModelSort[] = [
        { field: 'stock', direction: 'desc' },
        { field: 'price', direction: 'asc' },
      ];
      const { body } = await list(`${PRODUCTS}?_sort=stock:desc,price&_limit=100&_offset=40`);
      expect(ids(body)).toEqual(expectProducts([], sorts).slice(40, 140));
    });

    it('created_at ties (same instant) are ordered by id', async () => {
      const { body } = await list(`${PRODUCTS}?_sort=created_at:desc&_limit=100`);
      expect(ids(body)).toEqual(expectProducts([], [{ field: 'created_at', direction: 'desc' }]).slice(0, 100));
    });

    it.each([
      ['unknown field', 'colour'],
      ['not sortable', 'dimensions.depth'],
      ['bad direction', 'price:up'],
      ['repeated field', 'price,price:desc'],
      ['empty criterion', 'price,'],
    ])('L6: %s in _sort is a 422 naming _sort', async (_name, sort) => {
      const { status, body } = await list(`${PRODUCTS}?_sort=${sort}`);
      expect(status).toBe(422);
      expect(body.details).toContainEqual(expect.objectContaining({ field: '_sort', location: 'query' }));
    });
  });

  describe('cursor pagination (spec rule 4, L4)', () => {
    it('spec "List response envelope" / L4: _paginate=cursor has offset and count null, no total, no previous, and next carries _next_token', async () => {
      const { body } = await list(`${PRODUCTS}?_paginate=cursor&_limit=5&stock__gte=3`);
      expect(body.meta.page).toEqual({ limit: 5, offset: null, count: null, max_limit: 100 });
      expect(body.meta).not.toHaveProperty('total');
      expect(body.meta.links.previous).toBeNull();
      expect(body.meta.links.self).toBe('http://127.0.0.1:8080/seller/v1/products?_paginate=cursor&_limit=5&stock__gte=3');
      const next = new URL(body.meta.links.next);
      expect(next.searchParams.get('stock__gte')).toBe('3');
      expect(next.searchParams.get('_next_token')).toMatch(/^[\w-]+\.[\w-]+$/);
    });

    it('L4: _offset together with a cursor is a 422', async () => {
      for (const url of [`${PRODUCTS}?_paginate=cursor&_offset=10`, `${PRODUCTS}?_offset=0&_next_token=abc.def`]) {
        const { status, body } = await list(url);
        expect(status).toBe(422);
        expect(body.details).toContainEqual(expect.objectContaining({ field: '_offset' }));
      }
    });

    it('L4: a tampered token is a 422', async () => {
      const first = await list(`${PRODUCTS}?_paginate=cursor&_limit=5`);
      const next = new URL(first.body.meta.links.next);
      const token = next.searchParams.get('_next_token') as string;
      const [payload, mac] = token.split('.') as [string, string];
      const forged = JSON.parse(Buffer.from(payload, 'base64url').toString());
      forged.a[forged.a.length - 1] = '00000000-0000-0000-0000-000000000000';
      const variants = [
        `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`,
        // The MAC's first character changed: six bits of the MAC itself. (Its last two set to "AA", as
        // before, left it whole whenever it already ended so, and its last character carries padding bits.)
        `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`,
        payload,
        'not-a-token',
      ];
      for (const bad of variants) {
        const { status, body } = await list(`${PRODUCTS}?_next_token=${encodeURIComponent(bad)}&_limit=5`);
        expect(status).toBe(422);
        expect(body.details).toEqual([expect.objectContaining({ field: '_next_token', location: 'query' })]);
      }
    });

    it('L4: a token reused with other filters or sorts, or on another list, is a 422', async () => {
      const first = await list(`${PRODUCTS}?_paginate=cursor&_limit=5&stock__gte=3`);
      const token = new URL(first.body.meta.links.next).searchParams.get('_next_token') as string;
      const t = encodeURIComponent(token);
      expect((await list(`${PRODUCTS}?_next_token=${t}&stock__gte=3`)).status).toBe(200);
      expect((await list(`${PRODUCTS}?_next_token=${t}&stock__gte=4`)).status).toBe(422);
      expect((await list(`${PRODUCTS}?_next_token=${t}`)).status).toBe(422);
      expect((await list(`${PRODUCTS}?_next_token=${t}&stock__gte=3&_sort=price`)).status).toBe(422);
      expect((await list(`${ORDERS}?_next_token=${t}`)).status).toBe(422);
    });

    const sortVariants: string[] = [
      ...productList.sorts.flatMap((field) => [`${field}:asc`, `${field}:desc`]),
      'id:desc',
      'stock:desc,price:asc',
      'price:desc,created_at:asc,sku:desc',
    ];
    it.each(sortVariants)(
      'L4: following links.next under _sort=%s visits every record exactly once while records are inserted in between',
      async (sort) => {
        const before = new Set(products.map((p) => p.id));
        const seen: string[] = [];
        let url: string | null = `${PRODUCTS}?_paginate=cursor&_limit=17&_sort=${sort}`;
        let pages = 0;
        let inserted = 0;
        while (url) {
          const { status, body } = await list(url);
          expect(status).toBe(200);
          seen.push(...ids(body));
          url = body.meta.links.next ? pathOf(body.meta.links.next) : null;
          pages += 1;
          if (pages % 3 === 1) {
            products.push(...(await createProducts(platform, tenantId, 1, nextFixture++)));
            inserted += 1;
          }
          expect(pages).toBeLessThan(100);
        }
        expect(inserted).toBeGreaterThan(1);
        expect(new Set(seen).size).toBe(seen.length);
        for (const id of before) expect(seen).toContain(id);
      },
    );

    it('L4: cursor pages equal the offset pages of the same query when nothing changes', async () => {
      const query = `_sort=price:desc&title__like=a&_limit=13`;
      const viaOffset = listInMemory(
        products,
        productList.fields,
        [{ field: 'title', operator: 'like', raw: 'a' }],
        [{ field: 'price', direction: 'desc' }],
      ).map((p) => p.id);
      const seen: string[] = [];
      let url: string | null = `${PRODUCTS}?${query}&_paginate=cursor`;
      while (url) {
        const { body } = await list(url);
        seen.push(...ids(body));
        url = body.meta.links.next ? pathOf(body.meta.links.next) : null;
      }
      expect(seen).toEqual(viaOffset);
    });

    it('L3: a massive collection is walked past any offset ceiling with cursors, and the last page has next null', async () => {
      const seen: string[] = [];
      let url: string | null = `${ORDERS}?_paginate=cursor&_limit=7&_sort=total_amount:desc`;
      let lastNext: unknown;
      while (url) {
        const { body } = await list(url);
        seen.push(...ids(body));
        lastNext = body.meta.links.next;
        url = body.meta.links.next ? pathOf(body.meta.links.next) : null;
      }
      expect(lastNext).toBeNull();
      expect(seen).toEqual(
        listInMemory(orders, orderList.fields, [], [{ field: 'total_amount', direction: 'desc' }]).map((o) => o.id),
      );
    });
  });
});
