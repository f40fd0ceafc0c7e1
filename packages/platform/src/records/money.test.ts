import { MAX_MONEY_AMOUNT, MAX_ORDER_ITEM_QUANTITY } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../lists/test-support/list-fixtures.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { MAX_MONEY_CENTS, sumOfLinesCents } from './money.js';

describe('sumOfLinesCents (issue 17 §2)', () => {
  it('issue-17 §2: sums exactly up to the maximum and names the line that takes the total past it', () => {
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
  ])('issue-17 §2: %s is a 422 naming %s (no 500, nothing stored)', async (_what, collection, payload, field) => {
    const before = await stored();
    const res = await post(collection, payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await stored()).toEqual(before);
  });

  it('issue-17 §2: an order at exactly the maximum total is stored and reads back exactly', async () => {
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

  it('issue-17 §2: a refund transaction may still be negative', async () => {
    const res = await post('transactions', { type: 'refund', amount: -20.4 });
    expect(res.statusCode, res.body).toBe(201);
  });
});
