import { MAX_MONEY_AMOUNT, MAX_ORDER_ITEM_QUANTITY } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../test/lists/list-fixtures.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { MAX_MONEY_CENTS, sumOfLinesCents } from './money.js';

describe('sumOfLinesCents', () => {
  it('spec-notes R1: sums exactly up to the maximum and names the line that takes the total past it', () => {
    const half = MAX_MONEY_CENTS / 2;
    expect(sumOfLinesCents([{ priceCents: half, quantity: 2 }], (i) => `items.${i}.quantity`)).toBe(MAX_MONEY_CENTS);
    const over = () =>
      sumOfLinesCents(
        [
          { priceCents: half, quantity: 1 },
          { priceCents: half, quantity: 1 },
          { priceCents: 1, quantity: 1 },
        ],
        (i) => `items.${i}.quantity`,
      );
    expect(over).toThrowError(expect.objectContaining({ details: [expect.objectContaining({ field: 'items.2.quantity' })] }));
    // Products beyond 2^53 are refused, never rounded.
    expect(() => sumOfLinesCents([{ priceCents: MAX_MONEY_CENTS, quantity: 1e6 }], () => 'q')).toThrow();
    expect(() => sumOfLinesCents([{ priceCents: 1, quantity: 1 }], () => 'q', MAX_MONEY_CENTS)).toThrow();
  });
});

describe.each(testDatabaseTargets())('money at the admin API on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
  });
  afterAll(() => platform?.close());

  const post = (collection: string, payload: object) =>
    platform.app.inject({ method: 'POST', url: `/admin/v1/tenants/${tenantId}/${collection}`, headers: ADMIN, payload });
  const stored = async () => ({
    orders: (await platform.database.db.selectFrom('orders').select('id').where('tenant_id', '=', tenantId).execute()).length,
    products: (await platform.database.db.selectFrom('products').select('id').where('tenant_id', '=', tenantId).execute()).length,
    events: (await platform.database.db.selectFrom('outbox_events').select('seq').where('tenant_id', '=', tenantId).execute())
      .length,
  });
  const customer = { id: 'c-1', name: 'Ana' };
  const product = { sku: 'P-1', title: 'Mug', stock: 1, dimensions: { depth: 1, height: 1, width: 1, weight: 1 } };
  const product1 = { ...product, price: 1 };

  it.each([
    [
      'an order whose items overflow the total',
      'orders',
      { customer, items: [{ sku: 'A', quantity: MAX_ORDER_ITEM_QUANTITY, price: MAX_MONEY_AMOUNT }] },
      'items.0.quantity',
    ],
    [
      'an order whose second line takes the total past the maximum',
      'orders',
      {
        customer,
        items: [
          { sku: 'A', quantity: 1, price: MAX_MONEY_AMOUNT },
          { sku: 'B', quantity: 1, price: 0.01 },
        ],
      },
      'items.1.quantity',
    ],
    ['a quantity past the maximum', 'orders', { customer, items: [{ sku: 'A', quantity: 1e21, price: 1 }] }, 'items.0.quantity'],
    ['a negative item price', 'orders', { customer, items: [{ sku: 'A', quantity: 1, price: -5 }] }, 'items.0.price'],
    [
      'a negative order total',
      'orders',
      { customer, total_amount: -1, items: [{ sku: 'A', quantity: 1, price: 5 }] },
      'total_amount',
    ],
    ['a negative product price', 'products', { ...product, price: -0.01 }, 'price'],
    ['a product price past the maximum', 'products', { ...product, price: MAX_MONEY_AMOUNT * 10 }, 'price'],
  ])('spec-notes R1: %s is a 422 naming %s (no 500, nothing stored)', async (_what, collection, payload, field) => {
    const before = await stored();
    const res = await post(collection, payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await stored()).toEqual(before);
  });

  it('spec-notes R1: an order at exactly the maximum total is stored and reads back exactly', async () => {
    const res = await post('orders', {
      customer,
      items: [
        { sku: 'A', quantity: 3, price: 33_333_333_333.33 },
        { sku: 'B', quantity: 1, price: 0.01 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().total_amount).toBe(MAX_MONEY_AMOUNT);
  });

  // Bodies as JSON text, exactly as a client may send them: 1e400 is valid JSON, which JSON.parse reads as Infinity.
  const send = (method: 'POST' | 'PATCH', url: string, json: string) =>
    platform.app.inject({
      method,
      url: `/admin/v1/tenants/${tenantId}/${url}`,
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: json,
    });
  const customerJson = JSON.stringify(customer);
  const productJson = (price: string, sku: string) =>
    `{"sku":"${sku}","title":"Mug","stock":1,"dimensions":{"depth":1,"height":1,"width":1,"weight":1},"price":${price}}`;
  const orderJson = (fields: string) => `{"customer":${customerJson},${fields}}`;
  const oneItem = '"items":[{"sku":"A","quantity":1,"price":5}]';

  it.each([
    ['a total of 1e-9', 'total_amount', 'orders', orderJson(`"total_amount":1e-9,${oneItem}`)],
    ['a total of 10.001', 'total_amount', 'orders', orderJson(`"total_amount":10.001,${oneItem}`)],
    ['an item price of 1e-9', 'items.0.price', 'orders', orderJson('"items":[{"sku":"A","quantity":1,"price":1e-9}]')],
    ['an item price of 0.005', 'items.0.price', 'orders', orderJson('"items":[{"sku":"A","quantity":2,"price":0.005}]')],
    ['a shipping price of 0.001', 'shipping.price', 'orders', orderJson(`${oneItem},"shipping":{"id":"x","price":0.001}`)],
    ['a product price of 1e-9', 'price', 'products', productJson('1e-9', 'P-9')],
    ['a product price of 19.999', 'price', 'products', productJson('19.999', 'P-10')],
    ['a transaction amount of -1e-9', 'amount', 'transactions', '{"type":"fee","amount":-1e-9}'],
    ['a transaction amount of 1.005', 'amount', 'transactions', '{"type":"fee","amount":1.005}'],
  ])('R1: %s is a 422 naming %s, never stored rounded', async (_what, field, collection, json) => {
    const before = await stored();
    const res = await send('POST', collection, json);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ slug: 'UNPROCESSABLE_ENTITY', request_id: expect.any(String) });
    expect(res.json().details).toContainEqual(
      expect.objectContaining({ field, location: 'body', message: expect.stringContaining('2 decimal places') }),
    );
    expect(await stored()).toEqual(before);
  });

  it.each([
    ['a total of 1e400 (JSON.parse reads Infinity)', 'total_amount', 'orders', orderJson(`"total_amount":1e400,${oneItem}`)],
    ['an item price of 1e400', 'items.0.price', 'orders', orderJson('"items":[{"sku":"A","quantity":1,"price":1e400}]')],
    ['a shipping price of 1e400', 'shipping.price', 'orders', orderJson(`${oneItem},"shipping":{"id":"x","price":1e400}`)],
    ['a shipping price past the maximum', 'shipping.price', 'orders', orderJson(`${oneItem},"shipping":{"id":"x","price":1e12}`)],
    ['a negative shipping price', 'shipping.price', 'orders', orderJson(`${oneItem},"shipping":{"id":"x","price":-1}`)],
    ['a product price of 1e400', 'price', 'products', productJson('1e400', 'P-11')],
    ['a product price of -1e400', 'price', 'products', productJson('-1e400', 'P-12')],
    ['a transaction amount of 1e400', 'amount', 'transactions', '{"type":"sale","amount":1e400}'],
    ['a transaction amount of -1e400', 'amount', 'transactions', '{"type":"refund","amount":-1e400}'],
    ['a transaction amount past the negative maximum', 'amount', 'transactions', '{"type":"refund","amount":-100000000000.01}'],
  ])('R1: %s is a 422 naming %s (no 500, nothing stored)', async (_what, field, collection, json) => {
    const before = await stored();
    const res = await send('POST', collection, json);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details).toContainEqual(expect.objectContaining({ field, location: 'body' }));
    expect(await stored()).toEqual(before);
  });

  it('R1: a PATCH is held to the same money rules as a create, and a refused PATCH changes nothing', async () => {
    const order = (await post('orders', { customer, items: [{ sku: 'A', quantity: 1, price: 5 }] })).json();
    const product = (await post('products', { ...product1, sku: 'P-PATCH' })).json();
    const transaction = (await post('transactions', { type: 'sale', amount: 5 })).json();
    for (const [collection, id, json, field] of [
      ['orders', order.id, '{"total_amount":1e-9}', 'total_amount'],
      ['orders', order.id, '{"total_amount":1e400}', 'total_amount'],
      ['orders', order.id, '{"items":[{"sku":"A","quantity":1,"price":0.001}]}', 'items.0.price'],
      ['orders', order.id, '{"shipping":{"id":"x","price":2.345}}', 'shipping.price'],
      ['products', product.id, '{"price":1e-9}', 'price'],
      ['products', product.id, '{"price":-0.01}', 'price'],
      ['transactions', transaction.id, '{"amount":-1e-9}', 'amount'],
      ['transactions', transaction.id, '{"amount":-1e400}', 'amount'],
    ] as const) {
      const res = await send('PATCH', `${collection}/${id}`, json);
      expect(res.statusCode, `${collection} ${json}: ${res.body}`).toBe(422);
      expect(res.json().details).toContainEqual(expect.objectContaining({ field, location: 'body' }));
    }
    const read = async (collection: string, id: string) =>
      (await platform.app.inject({ url: `/admin/v1/tenants/${tenantId}/${collection}?id=${id}`, headers: ADMIN })).json()
        .results[0];
    expect(await read('orders', order.id)).toEqual(order);
    expect(await read('products', product.id)).toEqual(product);
    expect(await read('transactions', transaction.id)).toEqual(transaction);
  });

  it('R1: exact amounts at the edges are kept exactly: 0.29, 1.01, the negative maximum, and -0 is accepted as 0', async () => {
    const res = await post('orders', {
      customer,
      items: [
        { sku: 'A', quantity: 3, price: 0.29 },
        { sku: 'B', quantity: 1, price: 1.01 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().total_amount).toBe(1.88);
    expect(res.json().items.map((i: { price: number }) => i.price)).toEqual([0.29, 1.01]);
    const top = await post('transactions', { type: 'payout', amount: -MAX_MONEY_AMOUNT });
    expect(top.statusCode, top.body).toBe(201);
    expect(top.json().amount).toBe(-MAX_MONEY_AMOUNT);
    const zero = await send('POST', 'transactions', '{"type":"fee","amount":-0}');
    expect(zero.statusCode, zero.body).toBe(201);
    expect(zero.json().amount).toBe(0);
  });

  it('spec-notes R1: a refund transaction may still be negative', async () => {
    const res = await post('transactions', { type: 'refund', amount: -20.4 });
    expect(res.statusCode, res.body).toBe(201);
  });
});
