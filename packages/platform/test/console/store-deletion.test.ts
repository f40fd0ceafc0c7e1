import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordConsent } from '../../src/identity/consent-store.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';
import { ADMIN, createOrders, createProducts } from '../lists/list-fixtures.js';
import { uploadTable, vtexCsv } from '../shipping/freight-kit.js';
import { SELLER_SCOPES, signup } from '../webhooks/webhook-kit.js';
import { operatorSession } from './console-session.js';

/**
 * D84: deleting a store (admin API and operator console) deletes its records,
 * subscriptions and deliveries, shipping settings and freight tables and the
 * apps' consents for it; the seller, their other store and their tokens stay,
 * and a call naming the deleted store finds no store.
 */
describe.each(testDatabaseTargets())('store deletion on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  async function storeWithData() {
    const seller = await platform.createSeller({ tenants: 2 });
    const [gone, kept] = seller.tenantIds as [string, string];
    const app = await platform.createClient({ name: 'Integrador' });
    for (const tenantId of [gone, kept]) {
      await createOrders(platform, tenantId, 3);
      await createProducts(platform, tenantId, 2);
      await uploadTable(platform, tenantId, 'PAC', vtexCsv(['01000000;39999999;SP;0;1000;12,90;0;0;;2;BRA;0']));
      await recordConsent(
        platform.database.db,
        { clientId: app.clientId, sellerId: seller.sellerId, tenants: [tenantId] },
        ['open:order-order:read'],
        platform.clock,
      );
    }
    const token = await platform.mintAccessToken({
      tenants: [gone, kept],
      scopes: [...SELLER_SCOPES],
      clientId: app.clientId,
      sellerId: seller.sellerId,
    });
    for (const tenantId of [gone, kept]) {
      const own = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
      const signed = await signup(
        platform,
        { tenantId, clientId: app.clientId, token: own },
        'v1',
        'https://hooks.example/feira',
      );
      expect(signed.statusCode, signed.body).toBe(200);
    }
    return { seller, gone, kept, app, token };
  }

  const count = async (table: 'orders' | 'products' | 'webhook_subscriptions', tenantId: string) =>
    Number(
      (
        await platform.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const freightTables = async (owner: string) =>
    (await platform.database.db.selectFrom('freight_tables').select('owner').where('owner', '=', owner).execute()).length;
  const consents = async (tenantId: string) =>
    (await platform.database.db.selectFrom('consents').select('scope').where('tenant_key', '=', tenantId).execute()).length;

  it('D84: DELETE /admin/v1/sellers/{id}/tenants/{tenantId} deletes the store with its data; the other store and the token stay', async () => {
    const { seller, gone, kept, token } = await storeWithData();
    const answer = await platform.app.inject({
      method: 'DELETE',
      url: `/admin/v1/sellers/${seller.sellerId}/tenants/${gone}`,
      headers: ADMIN,
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ apps: 1 });
    expect(await count('orders', gone)).toBe(0);
    expect(await count('products', gone)).toBe(0);
    expect(await count('webhook_subscriptions', gone)).toBe(0);
    expect(await freightTables(gone)).toBe(0);
    expect(await consents(gone)).toBe(0);
    // The other store keeps everything, and the token still reaches it.
    expect(await count('orders', kept)).toBe(3);
    expect(await count('webhook_subscriptions', kept)).toBe(1);
    expect(await freightTables(kept)).toBe(1);
    expect(await consents(kept)).toBe(1);
    const other = await platform.app.inject({
      method: 'GET',
      url: '/v1/orders',
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': kept },
    });
    expect(other.statusCode).toBe(200);
    expect(other.json().results).toHaveLength(3);
    const seller2 = await platform.app.inject({ method: 'GET', url: `/admin/v1/sellers/${seller.sellerId}`, headers: ADMIN });
    expect(seller2.json().tenants.map((t: { id: string }) => t.id)).toEqual([kept]);
    // The deleted store is found nowhere; deleting it again is a 404.
    const again = await platform.app.inject({
      method: 'DELETE',
      url: `/admin/v1/sellers/${seller.sellerId}/tenants/${gone}`,
      headers: ADMIN,
    });
    expect(again.statusCode).toBe(404);
    const write = await platform.app.inject({
      method: 'POST',
      url: '/admin/v1/tenants/' + gone + '/orders',
      headers: ADMIN,
      payload: {},
    });
    expect([404, 422]).toContain(write.statusCode);
  });

  it("D84: another seller's store is a 404, and nothing of it is deleted", async () => {
    const { gone } = await storeWithData();
    const stranger = await platform.createSeller({ tenants: 1 });
    const answer = await platform.app.inject({
      method: 'DELETE',
      url: `/admin/v1/sellers/${stranger.sellerId}/tenants/${gone}`,
      headers: ADMIN,
    });
    expect(answer.statusCode).toBe(404);
    expect(await count('orders', gone)).toBe(3);
  });

  it('D84: the operator deletes a store from the seller page after confirming; the notice names it', async () => {
    const { seller, gone, kept } = await storeWithData();
    const operator = await operatorSession(platform.app, { 'accept-language': 'pt-BR' });
    const page = await operator.get(`/console/operator/sellers/${seller.sellerId}`);
    expect(page.body).toContain(`action="/console/operator/sellers/${seller.sellerId}/stores/${gone}/delete"`);
    const asked = await operator.post(`/console/operator/sellers/${seller.sellerId}/stores/${gone}/delete`);
    expect(asked.body).toContain('<h1>Excluir a loja Store 1?</h1>');
    expect(await count('orders', gone)).toBe(3);
    const done = await operator.post(`/console/operator/sellers/${seller.sellerId}/stores/${gone}/delete`, { confirmed: '1' });
    expect(done.statusCode).toBe(303);
    const after = await operator.get(done.headers.location as string);
    expect(after.body).toContain('Loja Store 1 excluída com os dados dela.');
    expect(await count('orders', gone)).toBe(0);
    expect(await count('orders', kept)).toBe(3);
  });
});
