import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../test/lists/list-fixtures.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';

// spec-notes R2: an order's total_amount is the one a write sends, else its
// items (price × quantity) plus its shipping price; a PATCH that changes the
// items or the shipping without a total recomputes it, so no total goes stale.

describe.each(testDatabaseTargets())('order total on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let token: string;

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
  });
  afterAll(() => platform?.close());

  const customer = { id: 'cust-1', name: 'Ana Souza' };
  const shipping = { id: 'exp', name: 'Express', price: 9.9, origin: { distribution_center: { id: 'dc-sp' } } };
  const create = async (body: object) => {
    const res = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/orders`,
      headers: ADMIN,
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const patch = (id: string, body: object) =>
    platform.app.inject({ method: 'PATCH', url: `/admin/v1/tenants/${tenantId}/orders/${id}`, headers: ADMIN, payload: body });
  const events = (id: string) =>
    platform.database.db.selectFrom('outbox_events').selectAll().where('record_id', '=', id).orderBy('seq').execute();
  /** What a subscriber does on a webhook: reads the record at the message's data.resource with its token. */
  const readResource = async (resource: string) =>
    (await platform.app.inject({ url: resource, headers: { authorization: `Bearer ${token}` } })).json();

  it('R2: a create without total_amount totals the items plus the shipping price', async () => {
    const order = await create({ customer, items: [{ sku: 'A', quantity: 2, price: 10.1 }], shipping });
    expect(order.total_amount).toBe(30.1);
    expect((await create({ customer, items: [{ sku: 'A', quantity: 3, price: 0.1 }] })).total_amount).toBe(0.3);
    expect((await create({ customer, items: [{ sku: 'A', quantity: 1, price: 5 }], total_amount: 4.5 })).total_amount).toBe(4.5);
  });

  it('R2: a PATCH of items alone recomputes total_amount, and the UPDATE webhook leads to the new total', async () => {
    const order = await create({ customer, items: [{ sku: 'A', quantity: 1, price: 10 }], shipping });
    expect(order.total_amount).toBe(19.9);
    platform.clock.advance(1000);
    const res = await patch(order.id, {
      items: [
        { sku: 'A', quantity: 3, price: 10 },
        { sku: 'B', quantity: 1, price: 0.35 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().total_amount).toBe(40.25);

    const [, update] = await events(order.id);
    expect(update?.status).toBe('UPDATE');
    const message = JSON.parse(update?.body as string);
    expect(message.data).toMatchObject({ status: 'UPDATE', params: { id: order.id } });
    const read = await readResource(message.data.resource);
    expect(read.total_amount).toBe(40.25);
    expect(read).toEqual(res.json());
  });

  it('R2: a PATCH of shipping alone recomputes the total from the stored items; shipping null leaves the items alone', async () => {
    const order = await create({ customer, items: [{ sku: 'A', quantity: 2, price: 7.5 }] });
    expect(order.total_amount).toBe(15);
    const priced = await patch(order.id, { shipping: { ...shipping, price: 12.34 } });
    expect(priced.statusCode, priced.body).toBe(200);
    expect(priced.json().total_amount).toBe(27.34);
    const none = await patch(order.id, { shipping: null });
    expect(none.json().total_amount).toBe(15);
    expect((await readResource(`/v1/orders/${order.id}`)).total_amount).toBe(15);
  });

  it('R2: a total the PATCH sends is kept as sent, with or without items; a PATCH of neither leaves the total alone', async () => {
    const order = await create({ customer, items: [{ sku: 'A', quantity: 1, price: 10 }], total_amount: 8 });
    expect((await patch(order.id, { status: 'approved' })).json().total_amount).toBe(8);
    const both = await patch(order.id, { items: [{ sku: 'A', quantity: 2, price: 10 }], total_amount: 18.5 });
    expect(both.json()).toMatchObject({ total_amount: 18.5, items: [{ sku: 'A', quantity: 2, price: 10 }] });
    expect((await patch(order.id, { total_amount: 17 })).json().total_amount).toBe(17);
    expect((await readResource(`/v1/orders/${order.id}`)).total_amount).toBe(17);
  });

  it('R1 / R2: a PATCH whose new items take the total past the maximum is a 422 naming the line; the order and its events are unchanged', async () => {
    const order = await create({ customer, items: [{ sku: 'A', quantity: 1, price: 10 }] });
    const res = await patch(order.id, { items: [{ sku: 'A', quantity: 1_000_000, price: 1_000_000 }] });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details).toContainEqual(expect.objectContaining({ field: 'items.0.quantity', location: 'body' }));
    expect(await readResource(`/v1/orders/${order.id}`)).toEqual(order);
    expect((await events(order.id)).map((e) => e.status)).toEqual(['CREATION']);
  });
});
