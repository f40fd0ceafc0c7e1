import type { Order, Product, Ticket, Transaction } from '@feira/contract';
import { RECORD_KINDS } from '@feira/platform';
import { FeiraClient, type ListPage, RECORD_PATHS, type RecordAt, type RecordByPath } from '@feira/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';

describe('record paths typed by record', () => {
  it("RECORD_PATHS names every kind of record by its table with the platform's read path, and no other", () => {
    expect(RECORD_PATHS).toEqual(Object.fromEntries(RECORD_KINDS.map((kind) => [kind.table, kind.readPath])));
  });

  it('list(), pages() and get() on a record path are typed by its record; any other path stays as the caller types it', () => {
    const api = new FeiraClient({ baseUrl: 'http://127.0.0.1:1', accessToken: 't' });
    expectTypeOf(api.list('/v1/orders')).toEqualTypeOf<AsyncGenerator<Order, void, undefined>>();
    expectTypeOf(api.list(RECORD_PATHS.tickets)).toEqualTypeOf<AsyncGenerator<Ticket, void, undefined>>();
    expectTypeOf(api.pages('/seller/v1/products')).toEqualTypeOf<AsyncGenerator<ListPage<Product>, void, undefined>>();
    // get() sends at once (a generator waits to be iterated): typed in a function never called, so no
    // request to the closed port is left failing after the test.
    const typedGets = () => {
      expectTypeOf(api.get('/seller/v1/financial-analysis/transactions/t-1')).toEqualTypeOf<Promise<Transaction>>();
      expectTypeOf(api.get<{ id: string }>('/seller/v1/webhooks/deliveries/d-1')).toEqualTypeOf<Promise<{ id: string }>>();
    };
    void typedGets;
    expectTypeOf(api.list('/seller/v1/webhooks/deliveries')).toEqualTypeOf<AsyncGenerator<unknown, void, undefined>>();
    expectTypeOf<RecordAt<'/v1/orders/o-1'>>().toEqualTypeOf<Order>();
    expectTypeOf<RecordByPath['/seller/v0/tickets']>().toEqualTypeOf<Ticket>();
  });
});
