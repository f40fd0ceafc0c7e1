import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform, testDatabaseTargets } from '../testing.js';

/**
 * The admin API's update and delete of sellers, stores and client
 * apps, with what happens to tokens, sessions and subscriptions.
 */
describe.each(testDatabaseTargets())('account changes on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const call = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: object) =>
    platform.app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
  const ordersWith = (token: string, tenantId: string) =>
    platform.app.inject({
      method: 'GET',
      url: '/v1/orders',
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId },
    });
  const subscribe = (token: string) =>
    platform.app.inject({
      method: 'PUT',
      url: '/v0/onboarding/signup',
      headers: { authorization: `Bearer ${token}` },
      payload: { webhook: 'http://127.0.0.1:9/hooks', topics: ['order'] },
    });

  async function sellerWithApp() {
    const seller = await platform.createSeller({ tenants: 2 });
    const app = await platform.createClient({ name: 'Loja Conectada' });
    const token = await platform.mintAccessToken({
      tenants: [seller.tenantIds[0] as string],
      scopes: ['open:order-order:read', 'open:webhook:write'],
      clientId: app.clientId,
    });
    expect((await ordersWith(token, seller.tenantIds[0] as string)).statusCode).toBe(200);
    expect((await subscribe(token)).statusCode).toBe(200);
    return { ...seller, app, token };
  }

  it('PATCH a seller changes name and login (a taken login is a 409 naming it); a new password ends their sessions but app tokens keep working', async () => {
    const seller = await sellerWithApp();
    const other = await platform.createSeller();
    const renamed = await call('PATCH', `/admin/v1/sellers/${seller.sellerId}`, {
      name: 'Casa Nova',
      login: `${seller.login}-novo`,
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Casa Nova', login: `${seller.login}-novo` });
    const taken = await call('PATCH', `/admin/v1/sellers/${seller.sellerId}`, { login: other.login });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().details[0]).toMatchObject({ field: 'login' });
    expect((await call('PATCH', `/admin/v1/sellers/${seller.sellerId}`, {})).statusCode).toBe(422);
    expect((await call('PATCH', '/admin/v1/sellers/00000000-0000-4000-8000-000000000000', { name: 'x' })).statusCode).toBe(404);

    const now = platform.clock.now();
    await platform.database.db
      .insertInto('login_sessions')
      .values({
        id_hash: `h-${seller.sellerId}`,
        seller_id: seller.sellerId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
        ended_at: null,
        ended_reason: null,
      })
      .execute();
    expect((await call('PATCH', `/admin/v1/sellers/${seller.sellerId}`, { password: 'a brand new secret' })).statusCode).toBe(
      200,
    );
    const session = await platform.database.db
      .selectFrom('login_sessions')
      .select('ended_reason')
      .where('id_hash', '=', `h-${seller.sellerId}`)
      .executeTakeFirstOrThrow();
    expect(session.ended_reason).toBe('password_changed');
    expect((await ordersWith(seller.token, seller.tenantIds[0] as string)).statusCode).toBe(200);
  });

  it("a store can be added to a seller and renamed; another seller's store cannot be renamed through this one", async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const other = await platform.createSeller({ tenants: 1 });
    const added = await call('POST', `/admin/v1/sellers/${seller.sellerId}/tenants`, { name: 'Filial Centro' });
    expect(added.statusCode).toBe(201);
    const stores = added.json().tenants as Array<{ id: string; name: string }>;
    expect(stores.map((s) => s.name)).toContain('Filial Centro');
    const id = stores.find((s) => s.name === 'Filial Centro')?.id;
    const renamed = await call('PATCH', `/admin/v1/sellers/${seller.sellerId}/tenants/${id}`, { name: 'Filial Sul' });
    expect(renamed.json().tenants.map((s: { name: string }) => s.name)).toContain('Filial Sul');
    const foreign = await call('PATCH', `/admin/v1/sellers/${seller.sellerId}/tenants/${other.tenantIds[0]}`, {
      name: 'Mine now',
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('DELETE a seller revokes every token of theirs (the next API call is a 401), and removes their stores with records and subscriptions', async () => {
    const seller = await sellerWithApp();
    const deleted = await call('DELETE', `/admin/v1/sellers/${seller.sellerId}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ stores: 2, revoked_grants: 1, ended_sessions: 0 });
    expect((await ordersWith(seller.token, seller.tenantIds[0] as string)).statusCode).toBe(401);
    expect((await call('GET', `/admin/v1/sellers/${seller.sellerId}`)).statusCode).toBe(404);
    const left = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('tenant_id', 'in', seller.tenantIds)
      .execute();
    expect(left).toEqual([]);
    expect((await call('DELETE', `/admin/v1/sellers/${seller.sellerId}`)).statusCode).toBe(404);
  });

  it("DELETE a seller removes their stores' freight tables and leaves another seller's", async () => {
    const csv = 'ZipCodeStart;ZipCodeEnd;WeightStart;WeightEnd;AbsoluteMoneyCost;TimeCost\r\n01000000;01999999;0;1000;10;2\r\n';
    const upload = (tenantId: string) =>
      platform.app.inject({
        method: 'PUT',
        url: `/admin/v1/tenants/${tenantId}/shipping/freight-tables/eco?name=Eco`,
        headers: { ...admin, 'content-type': 'text/csv' },
        payload: csv,
      });
    const leaving = await platform.createSeller({ tenants: 2 });
    const staying = await platform.createSeller();
    for (const tenantId of [...leaving.tenantIds, ...staying.tenantIds]) expect((await upload(tenantId)).statusCode).toBe(201);
    expect((await call('DELETE', `/admin/v1/sellers/${leaving.sellerId}`)).statusCode).toBe(200);
    const owners = async (tenantIds: string[]) =>
      (await platform.database.db.selectFrom('freight_tables').select('owner').where('owner', 'in', tenantIds).execute()).map(
        (row) => row.owner,
      );
    expect(await owners(leaving.tenantIds)).toEqual([]);
    expect(await owners(staying.tenantIds)).toEqual(staying.tenantIds);
    const kept = await call('GET', `/admin/v1/tenants/${staying.tenantIds[0]}/shipping/freight-tables/eco`);
    expect(kept.statusCode).toBe(200);
  });

  it('DELETE a client app revokes its tokens and deletes its subscriptions: no event is queued for it again', async () => {
    const seller = await sellerWithApp();
    const deleted = await call('DELETE', `/admin/v1/clients/${seller.app.clientId}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ revoked_grants: 1, subscriptions: 1 });
    expect((await ordersWith(seller.token, seller.tenantIds[0] as string)).statusCode).toBe(401);
    expect((await call('GET', `/admin/v1/clients/${seller.app.clientId}`)).statusCode).toBe(404);
    // The seller is untouched.
    expect((await call('GET', `/admin/v1/sellers/${seller.sellerId}`)).statusCode).toBe(200);
  });

  it('the update and delete routes refuse a caller without the admin token (401, uniform error shape)', async () => {
    const seller = await platform.createSeller();
    const res = await platform.app.inject({ method: 'DELETE', url: `/admin/v1/sellers/${seller.sellerId}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ slug: expect.any(String), message: expect.any(String) });
  });
});
