import type { Scope } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../test/lists/list-fixtures.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { insertOrder } from './kinds/orders.js';

// Records per tenant: the four collections read with a bearer
// token and written through the admin API, each write with its outbox event
// (spec-notes W6, W7), and tenants kept apart.

interface CollectionCase {
  name: 'orders' | 'products' | 'tickets' | 'transactions';
  readPath: string;
  scope: Scope;
  topic: string;
  create: Record<string, unknown>;
  patch: Record<string, unknown>;
  changed: Record<string, unknown>;
}

const CASES: CollectionCase[] = [
  {
    name: 'orders',
    readPath: '/v1/orders',
    scope: 'open:order-order:read',
    topic: 'order',
    create: {
      customer: { id: 'cust-1', name: 'Ana Souza' },
      items: [
        { sku: 'SKU-1', quantity: 2, price: 10.1 },
        { sku: 'SKU-2', quantity: 1, price: 0.2 },
      ],
      shipping: { id: 'exp', name: 'Express', price: 9.9, delivery_days: 2, origin: { distribution_center: { id: 'dc-sp' } } },
    },
    patch: { status: 'approved' },
    changed: { status: 'approved' },
  },
  {
    name: 'products',
    readPath: '/seller/v1/products',
    scope: 'open:portfolio:read',
    topic: 'product',
    create: {
      sku: 'MUG-01',
      title: 'Caneca',
      price: 39.9,
      stock: 3,
      dimensions: { depth: 10, height: 12, width: 10, weight: 350 },
    },
    patch: { stock: 0, price: 35 },
    changed: { stock: 0, price: 35 },
  },
  {
    name: 'tickets',
    readPath: '/seller/v0/tickets',
    scope: 'open:ticket:read',
    topic: 'sac_ticket',
    create: { subject: 'Where is my order?', customer: { id: 'cust-1', name: 'Ana Souza' }, order_id: 'o-1' },
    patch: { status: 'answered' },
    changed: { status: 'answered' },
  },
  {
    name: 'transactions',
    readPath: '/seller/v1/financial-analysis/transactions',
    scope: 'open:financial-transaction:read',
    topic: 'financial_transaction',
    create: { type: 'sale', amount: 20.4, order_id: 'o-1' },
    patch: { type: 'refund', amount: -20.4 },
    changed: { type: 'refund', amount: -20.4 },
  },
];

describe.each(testDatabaseTargets())('record APIs on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let otherTenantId: string;

  const outbox = (recordId: string) =>
    platform.database.db.selectFrom('outbox_events').selectAll().where('record_id', '=', recordId).orderBy('seq').execute();

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    otherTenantId = (await platform.createSeller()).tenantIds[0] as string;
  });
  afterAll(() => platform?.close());

  describe.each(CASES)('$name', (c) => {
    it('spec Events statuses / Versioning 2 / W6, W7: admin POST 201, PATCH 200, DELETE 204, each appending its CREATION/UPDATE/DELETION event (topic and data.resource = the versioned read path)', async () => {
      const created = await platform.app.inject({
        method: 'POST',
        url: `/admin/v1/tenants/${tenantId}/${c.name}`,
        headers: ADMIN,
        payload: c.create,
      });
      expect(created.statusCode, created.body).toBe(201);
      const record = created.json();
      expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(record.created_at).toBe(platform.clock.now().toISOString());

      platform.clock.advance(5000);
      const patched = await platform.app.inject({
        method: 'PATCH',
        url: `/admin/v1/tenants/${tenantId}/${c.name}/${record.id}`,
        headers: ADMIN,
        payload: c.patch,
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ ...c.changed, id: record.id, created_at: record.created_at });
      expect(patched.json().updated_at).toBe(platform.clock.now().toISOString());

      const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [c.scope] });
      const read = await platform.app.inject({
        url: `${c.readPath}/${record.id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(patched.json());

      const deleted = await platform.app.inject({
        method: 'DELETE',
        url: `/admin/v1/tenants/${tenantId}/${c.name}/${record.id}`,
        headers: ADMIN,
      });
      expect(deleted.statusCode).toBe(204);
      expect(
        (await platform.app.inject({ url: `${c.readPath}/${record.id}`, headers: { authorization: `Bearer ${token}` } }))
          .statusCode,
      ).toBe(404);

      const events = await outbox(record.id);
      expect(events.map((e) => e.status)).toEqual(['CREATION', 'UPDATE', 'DELETION']);
      for (const event of events) {
        expect(event).toMatchObject({ tenant_id: tenantId, topic: c.topic, resource: `${c.readPath}/${record.id}` });
        expect(JSON.parse(event.body)).toEqual({
          data: { status: event.status, params: { id: record.id }, resource: `${c.readPath}/${record.id}` },
          tenant_id: tenantId,
          topic: c.topic,
        });
      }
    });

    it('spec-notes L9: no token 401, a token without the scope 403, another tenant’s record 404 (never a leak)', async () => {
      const created = (
        await platform.app.inject({
          method: 'POST',
          url: `/admin/v1/tenants/${otherTenantId}/${c.name}`,
          headers: ADMIN,
          payload: { ...c.create, ...(c.name === 'products' && { sku: 'OTHER-1' }) },
        })
      ).json();
      expect((await platform.app.inject({ url: c.readPath })).statusCode).toBe(401);
      const wrongScope = CASES.find((other) => other.scope !== c.scope)?.scope as Scope;
      const noScope = await platform.mintAccessToken({ tenants: [tenantId], scopes: [wrongScope] });
      const forbidden = await platform.app.inject({ url: c.readPath, headers: { authorization: `Bearer ${noScope}` } });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().slug).toBe('FORBIDDEN');

      const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [c.scope] });
      const leak = await platform.app.inject({
        url: `${c.readPath}/${created.id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(leak.statusCode).toBe(404);
      expect(leak.json().slug).toBe('NOT_FOUND');
      const listed = await platform.app.inject({
        url: `${c.readPath}?id=${created.id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(listed.json().results).toEqual([]);
      // The admin API addresses records by tenant too: the wrong tenant in the path is a 404 and changes nothing.
      const cross = await platform.app.inject({
        method: 'PATCH',
        url: `/admin/v1/tenants/${tenantId}/${c.name}/${created.id}`,
        headers: ADMIN,
        payload: c.patch,
      });
      expect(cross.statusCode).toBe(404);
      expect((await outbox(created.id)).map((e) => e.status)).toEqual(['CREATION']);
    });

    it('admin writes: no admin token 401, unknown tenant 404, a body not matching the contract 422', async () => {
      const path = `/admin/v1/tenants/${tenantId}/${c.name}`;
      expect((await platform.app.inject({ method: 'POST', url: path, payload: c.create })).statusCode).toBe(401);
      const unknown = await platform.app.inject({
        method: 'POST',
        url: `/admin/v1/tenants/nope/${c.name}`,
        headers: ADMIN,
        payload: c.create,
      });
      // Refused by the insert's foreign key (no look-up first): the same 404 in the uniform shape, and no event.
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ message: 'Tenant not found' });
      const events = await platform.database.db
        .selectFrom('outbox_events')
        .select('id')
        .where('tenant_id', '=', 'nope')
        .execute();
      expect(events).toEqual([]);
      const invalid = await platform.app.inject({
        method: 'POST',
        url: path,
        headers: ADMIN,
        payload: { ...c.create, unexpected: 1 },
      });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().details).toContainEqual(expect.objectContaining({ field: 'unexpected', location: 'body' }));
    });
  });

  it('products: sku is unique per tenant (409) but may repeat across tenants; sku over 50 characters is a 422 (spec "Limits")', async () => {
    const body = { sku: 'DUP-1', title: 'Caneca', price: 1, stock: 1, dimensions: { depth: 1, height: 1, width: 1, weight: 1 } };
    const post = (tenant: string, payload: unknown) =>
      platform.app.inject({
        method: 'POST',
        url: `/admin/v1/tenants/${tenant}/products`,
        headers: ADMIN,
        payload: payload as object,
      });
    expect((await post(tenantId, body)).statusCode).toBe(201);
    const duplicate = await post(tenantId, body);
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().details[0].field).toBe('sku');
    expect((await post(otherTenantId, body)).statusCode).toBe(201);
    expect((await post(tenantId, { ...body, sku: 'x'.repeat(51) })).statusCode).toBe(422);
  });

  it('money: amounts are exact decimals (cents at rest); more than 2 decimal places is a 422 naming the field', async () => {
    const order = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/orders`,
      headers: ADMIN,
      payload: {
        customer: { id: 'c', name: 'C' },
        items: [
          { sku: 'A', quantity: 3, price: 0.1 },
          { sku: 'B', quantity: 1, price: 0.2 },
        ],
      },
    });
    expect(order.json().total_amount).toBe(0.5);
    const bad = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/transactions`,
      headers: ADMIN,
      payload: { type: 'fee', amount: 1.005 },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details[0]).toMatchObject({ field: 'amount', location: 'body' });
  });

  it('spec-notes W6: insertOrder inside a caller’s transaction commits or rolls back together with its event', async () => {
    const deps = { clock: platform.clock, random: platform.app.platform.random, database: platform.database };
    const input = { customer: { id: 'c', name: 'C' }, items: [{ sku: 'A', quantity: 1, price: 5 }] };
    let rolledBackId = '';
    await expect(
      platform.database.db.transaction().execute(async (trx) => {
        rolledBackId = (await insertOrder(trx, tenantId, input, deps)).id;
        throw new Error('checkout failed after the order was written');
      }),
    ).rejects.toThrow('checkout failed');
    expect(await outbox(rolledBackId)).toEqual([]);
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
    expect(
      (await platform.app.inject({ url: `/v1/orders/${rolledBackId}`, headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(404);

    const kept = await platform.database.db.transaction().execute((trx) => insertOrder(trx, tenantId, input, deps));
    expect((await outbox(kept.id)).map((e) => e.status)).toEqual(['CREATION']);
    const read = await platform.app.inject({ url: `/v1/orders/${kept.id}`, headers: { authorization: `Bearer ${token}` } });
    expect(read.json()).toEqual(kept);
  });

  it('spec-notes I9: a token for several tenants reads the one named in X-Tenant-Id', async () => {
    const seller = await platform.createSeller({ tenants: 2 });
    const [a, b] = seller.tenantIds as [string, string];
    for (const [tenant, subject] of [
      [a, 'in A'],
      [b, 'in B'],
    ] as const) {
      await platform.app.inject({
        method: 'POST',
        url: `/admin/v1/tenants/${tenant}/tickets`,
        headers: ADMIN,
        payload: { subject, customer: { id: 'c', name: 'C' } },
      });
    }
    const token = await platform.mintAccessToken({ tenants: [a, b], scopes: ['open:ticket:read'] });
    const inB = await platform.app.inject({
      url: '/seller/v0/tickets',
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': b },
    });
    expect(inB.json().results.map((t: { subject: string }) => t.subject)).toEqual(['in B']);
  });
});
