import { SCOPE_NAMES } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../core/hashing.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { addRedirectUri, createClient, findClientById, findPublicClientById, verifyClientSecret } from './client-repository.js';
import {
  createSeller,
  findSellerById,
  findSellerByLogin,
  listTenantsOfSeller,
  listTenantsOfSellers,
} from './seller-repository.js';

describe.each(testDatabaseTargets())('account repositories on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  const deps = () => ({ clock: platform.clock, random: platform.app.platform.random });

  it('creates a seller with UUID v4 tenants, finds it by id and login, and lists its tenants oldest first, then by name', async () => {
    const seller = await createSeller(
      platform.database.db,
      { name: 'Ana', login: 'ana@repo.test', password: 'a long password', tenants: [{ name: 'North' }, { name: 'South' }] },
      deps(),
    );
    expect(seller.tenants.map((t) => t.id)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)]),
    );
    expect((await findSellerById(platform.database.db, seller.id))?.tenants.map((t) => t.name)).toEqual(['North', 'South']);
    const credentials = await findSellerByLogin(platform.database.db, 'ana@repo.test');
    expect(credentials?.id).toBe(seller.id);
    expect(credentials?.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword('a long password', credentials!.passwordHash)).toBe(true);
    expect(await verifyPassword('wrong password', credentials!.passwordHash)).toBe(false);
    expect((await listTenantsOfSeller(platform.database.db, seller.id)).map((t) => t.name)).toEqual(['North', 'South']);
    expect(await findSellerByLogin(platform.database.db, 'nobody@repo.test')).toBeUndefined();
    const bySeller = await listTenantsOfSellers(platform.database.db, [seller.id, 'no-such-seller']);
    expect(bySeller.get(seller.id)?.map((t) => t.name)).toEqual(['North', 'South']);
    expect(bySeller.get('no-such-seller')).toEqual([]);
  });

  it('refuses a second seller with the same login with a 409 CONFLICT naming the field', async () => {
    const input = { name: 'Bo', login: 'bo@repo.test', password: 'a long password', tenants: [] };
    await createSeller(platform.database.db, input, deps());
    await expect(createSeller(platform.database.db, input, deps())).rejects.toMatchObject({
      statusCode: 409,
      slug: 'CONFLICT',
      details: [expect.objectContaining({ field: 'login' })],
    });
  });

  it('creates a client whose secret is stored only as a hash and verifies it in constant time', async () => {
    const { client, clientSecret } = await createClient(
      platform.database.db,
      { name: 'App', redirectUris: ['https://app.example/cb'], scopes: SCOPE_NAMES, defaultScopes: ['open:portfolio:read'] },
      deps(),
    );
    const stored = await findClientById(platform.database.db, client.id);
    expect(stored?.secretHash).not.toContain(clientSecret);
    expect(verifyClientSecret(stored!, clientSecret)).toBe(true);
    expect(verifyClientSecret(stored!, `${clientSecret}x`)).toBe(false);
    expect(await findPublicClientById(platform.database.db, client.id)).not.toHaveProperty('secretHash');
    expect(await findClientById(platform.database.db, 'client_nope')).toBeUndefined();
    expect(await addRedirectUri(platform.database.db, client.id, 'http://127.0.0.1:9000/demo/callback')).toBe(true);
    expect(await addRedirectUri(platform.database.db, client.id, 'http://127.0.0.1:9000/demo/callback')).toBe(false);
    expect((await findClientById(platform.database.db, client.id))?.redirectUris).toEqual([
      'https://app.example/cb',
      'http://127.0.0.1:9000/demo/callback',
    ]);
  });
});
