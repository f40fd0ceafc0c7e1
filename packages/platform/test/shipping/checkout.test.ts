// The checkout (spec-notes Q6): the automatic second quote, then the order
// with the chosen option and its origin, and the order's webhook event.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import { type LoopbackReceiver, startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, sellerWithToken, signup } from '../webhooks/webhook-kit.js';
import {
  addProducts,
  answerWith,
  cart,
  option,
  quoteLog,
  storefrontCheckout,
  storefrontQuote,
  storeSellingVia,
} from './shipping-kit.js';
import { type SellerBehaviour, startTestSeller, type TestSeller } from './test-seller.js';

const multiCentreAnswer = answerWith([
  option({ id: 'express', name: 'Expressa', price: 30, delivery_days: 1, origin: { distribution_center: { id: 'CD-SP' } } }),
  option({ id: 'normal', name: 'Normal', price: 15, delivery_days: 4, origin: { distribution_center: { id: 'CD-SP' } } }),
  option({ id: 'economy', name: 'Econômica', price: 9.9, delivery_days: 8, origin: { distribution_center: { id: 'CD-RJ' } } }),
]);

describe.each(testDatabaseTargets())('checkout on $dialect', (target) => {
  let platform: TestPlatform;
  const servers: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterAll(() => platform.close());
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  async function sellerAnswering(behave: (n: number) => SellerBehaviour, tenantId?: string) {
    const seller: TestSeller = await startTestSeller({ tls: true, behave: () => behave(seller.requests.length) });
    servers.push(seller);
    const id = await storeSellingVia(platform, `${seller.url}/quote`, ['CD-SP', 'CD-RJ'], tenantId);
    return { seller, tenantId: id };
  }

  const ordersOf = (tenantId: string) =>
    platform.database.db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).execute();
  const eventsOf = (tenantId: string) =>
    platform.database.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('topic', '=', 'order')
      .execute();

  it('spec Quote rules 1, 2, 5 / spec-notes Q6: checkout re-quotes, creates the order with the chosen option and its origin, and its webhook goes out', async () => {
    const hooks: LoopbackReceiver = await startReceiver({ tls: true });
    servers.push(hooks);
    const owner = await sellerWithToken(platform);
    expect((await signup(platform, owner, 'v1', hooks.url, ['order'])).statusCode).toBe(200);
    const { seller, tenantId } = await sellerAnswering(() => ({ status: 200, json: multiCentreAnswer }), owner.tenantId);

    const productPage = (await storefrontQuote(platform, tenantId)).json();
    platform.clock.advance(1000);
    expect(productPage.packages[0].options.map((o: { id: string }) => o.id)).toEqual(['express', 'economy']);
    const res = await storefrontCheckout(platform, tenantId, 'cheapest', { customer: { id: 'cust-1', name: 'Ana' } });
    expect(res.statusCode).toBe(201);
    const { order } = res.json();
    // Two quotes per purchase (spec rule 2), each its own session, both logged.
    expect(seller.requests).toHaveLength(2);
    const log = await quoteLog(platform, tenantId);
    expect(log.map((entry) => [entry.purpose, entry.outcome])).toEqual([
      ['storefront', 'ok'],
      ['checkout', 'ok'],
    ]);
    expect(order.shipping.quote_session_id).toBe(log[1]?.session_id);
    expect(order).toMatchObject({
      status: 'new',
      customer: { id: 'cust-1', name: 'Ana' },
      currency: 'BRL',
      // 2 × 19.99 + 1 × 50.00 + 9.90 shipping
      total_amount: 99.88,
      items: [
        { sku: 'SKU-A', quantity: 2, price: 19.99 },
        { sku: 'SKU-B', quantity: 1, price: 50 },
      ],
      shipping: {
        id: 'economy',
        name: 'Econômica',
        price: 9.9,
        delivery_days: 8,
        origin: { distribution_center: { id: 'CD-RJ' } },
        zipcode: '01310100',
      },
    });

    const [row] = await ordersOf(tenantId);
    expect(row).toMatchObject({ id: order.id, shipping_distribution_center_id: 'CD-RJ', total_amount_cents: 9988 });
    const [event] = await eventsOf(tenantId);
    expect(event).toMatchObject({ status: 'CREATION', record_id: order.id, resource: `/v1/orders/${order.id}` });

    // The event is delivered as a webhook, and the order reads back with its origin.
    await dispatcherOf(platform).drain();
    const [delivery] = await hooks.waitFor(1);
    expect(JSON.parse(delivery!.raw.toString('utf8'))).toEqual({
      data: { status: 'CREATION', params: { id: order.id }, resource: `/v1/orders/${order.id}` },
      tenant_id: tenantId,
      topic: 'order',
    });
    const read = await platform.app.inject({
      method: 'GET',
      url: `/v1/orders/${order.id}`,
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().shipping.origin).toEqual({ distribution_center: { id: 'CD-RJ' } });
  });

  it('spec-notes Q5/Q6: choice "fastest" or a shown option id picks that option; an option not shown is a 409 with the new quote', async () => {
    const { tenantId } = await sellerAnswering(() => ({ status: 200, json: multiCentreAnswer }));
    const fastest = (await storefrontCheckout(platform, tenantId, 'fastest')).json().order;
    expect(fastest.shipping).toMatchObject({ id: 'express', price: 30, origin: { distribution_center: { id: 'CD-SP' } } });
    const byId = (await storefrontCheckout(platform, tenantId, 'economy')).json().order;
    expect(byId.shipping.id).toBe('economy');
    const notShown = await storefrontCheckout(platform, tenantId, 'normal');
    expect(notShown.statusCode).toBe(409);
    expect(notShown.json()).toMatchObject({ slug: 'CONFLICT', details: [{ field: 'choice' }], quote: { available: true } });
    expect(await ordersOf(tenantId)).toHaveLength(2);
  });

  it('spec-notes R1: a checkout whose total overflows is a 422 naming the cart line the shopper sent (no 500, no order)', async () => {
    const bigCart = [{ sku: 'BIG', quantity: 100_000 }];
    const answer = answerWith([option({ origin: { distribution_center: { id: 'CD-SP' } } })], bigCart);
    const { tenantId } = await sellerAnswering(() => ({ status: 200, json: answer }));
    // The largest price the admin API accepts (contract MAX_MONEY_AMOUNT), times the largest cart quantity.
    await addProducts(platform, tenantId, [{ sku: 'BIG', price_cents: 1e13 }]);
    const res = await storefrontCheckout(platform, tenantId, 'cheapest', { items: bigCart });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details).toEqual([expect.objectContaining({ field: 'items.0.quantity', location: 'body' })]);
    expect(await ordersOf(tenantId)).toHaveLength(0);
    expect(await eventsOf(tenantId)).toHaveLength(0);
  });

  it('spec-notes Q6: shipping unavailable at checkout (out_of_stock) is a 409 with the reason, and no order or event', async () => {
    const { tenantId } = await sellerAnswering(() => ({
      status: 400,
      json: { message: 'Itens sem Estoque', code: 'out_of_stock', items: [{ sku: 'SKU-B', available_quantity: '0' }] },
    }));
    const res = await storefrontCheckout(platform, tenantId, 'cheapest');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      slug: 'CONFLICT',
      reason: { code: 'out_of_stock', message: 'Itens sem Estoque', items: [{ sku: 'SKU-B', available_quantity: 0 }] },
    });
    expect(await ordersOf(tenantId)).toHaveLength(0);
    expect(await eventsOf(tenantId)).toHaveLength(0);
  });

  it('Errors / Shipping quote / spec-notes Q6: a seller timing out at checkout is a 409 timeout, no order, no retry', async () => {
    const { seller, tenantId } = await sellerAnswering(() => ({ late: { afterMs: 1500, status: 200, json: multiCentreAnswer } }));
    const res = await storefrontCheckout(platform, tenantId, 'cheapest');
    expect(res.statusCode).toBe(409);
    expect(res.json().reason.code).toBe('timeout');
    await seller.until(() => seller.lateAnswers.length === 1);
    expect(seller.requests).toHaveLength(1);
    expect(await ordersOf(tenantId)).toHaveLength(0);
  });

  it('spec-notes Q5: several packages: the choice applies per package, shipping prices add up, each origin is kept', async () => {
    const { tenantId } = await sellerAnswering(() => ({
      status: 200,
      json: {
        packages: [
          {
            delivery_options: [
              option({ id: 'a-fast', price: 20, delivery_days: 2, origin: { distribution_center: { id: 'CD-SP' } } }),
              option({ id: 'a-cheap', price: 7.5, delivery_days: 6, origin: { distribution_center: { id: 'CD-SP' } } }),
            ],
            items: [cart[0]],
          },
          {
            delivery_options: [
              option({ id: 'b-only', price: 12.25, delivery_days: 3, origin: { distribution_center: { id: 'CD-RJ' } } }),
            ],
            items: [cart[1]],
          },
        ],
      },
    }));
    const { order } = (await storefrontCheckout(platform, tenantId, 'cheapest')).json();
    expect(order.shipping.price).toBe(19.75);
    expect(order.shipping.delivery_days).toBe(6);
    expect(
      order.shipping.packages.map((p: { option: { id: string; origin: unknown } }) => [p.option.id, p.option.origin]),
    ).toEqual([
      ['a-cheap', { distribution_center: { id: 'CD-SP' } }],
      ['b-only', { distribution_center: { id: 'CD-RJ' } }],
    ]);
    expect(order.total_amount).toBe(89.98 + 19.75);
  });

  it('storefront checkout: unknown tenant 404, unknown SKU 422, bad zipcode 422, missing choice 422; none calls the seller', async () => {
    const { seller, tenantId } = await sellerAnswering(() => ({ status: 200, json: multiCentreAnswer }));
    expect((await storefrontCheckout(platform, platform.app.platform.random.uuid(), 'cheapest')).statusCode).toBe(404);
    const unknownSku = await storefrontCheckout(platform, tenantId, 'cheapest', { items: [{ sku: 'NOPE', quantity: 1 }] });
    expect(unknownSku.statusCode).toBe(422);
    expect(unknownSku.json().details[0].field).toBe('items.0.sku');
    expect((await storefrontCheckout(platform, tenantId, 'cheapest', { zipcode: '1234' })).statusCode).toBe(422);
    const noChoice = await platform.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkouts',
      payload: { tenant_id: tenantId, zipcode: '01310100', items: cart },
    });
    expect(noChoice.statusCode).toBe(422);
    expect(seller.requests).toHaveLength(0);
  });
});
