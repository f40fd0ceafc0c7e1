import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCOPE_NAMES } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findClientById, verifyClientSecret } from '../accounts/client-repository.js';
import { findSellerByLogin } from '../accounts/seller-repository.js';
import { verifyPassword } from '../core/hashing.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { DEMO_CREDENTIALS_FILE, readDemoCredentials, writeDemoCredentials } from './demo-credentials-file.js';
import { demoLoginUrl, isEmptyForDemo, seedDemo } from './demo-seed.js';

describe.each(testDatabaseTargets())('demo seed on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  it('plants a demo seller with two stores and the "Feira demo app" client holding every catalogue scope', async () => {
    expect(await isEmptyForDemo(platform.app.platform)).toBe(true);
    const seededStores: string[][] = [];
    const demo = await seedDemo(platform.app.platform, {
      seedRecords: async (_platform, tenants) => {
        seededStores.push(tenants.map((t) => t.id));
      },
    });
    expect(await isEmptyForDemo(platform.app.platform)).toBe(false);

    const seller = await findSellerByLogin(platform.database.db, 'demo@feira.test');
    expect(seller).toBeDefined();
    expect(await verifyPassword(demo.sellerPassword, seller!.passwordHash)).toBe(true);
    expect(demo.tenants).toHaveLength(2);
    // The records call site receives both stores.
    expect(seededStores).toEqual([demo.tenants.map((t) => t.id)]);

    const client = await findClientById(platform.database.db, demo.clientId);
    expect(client).toMatchObject({
      name: 'Feira demo app',
      redirectUris: ['http://127.0.0.1:8080/demo/callback', 'http://127.0.0.1/feira-cli/callback'],
      scopes: SCOPE_NAMES,
      defaultScopes: ['open:portfolio:read', 'open:order-order:read'],
      termsOfUseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\//),
      privacyPolicyUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\//),
    });
    expect(verifyClientSecret(client!, demo.clientSecret)).toBe(true);
  });
});

describe('demo credentials file and login URL', () => {
  it('keeps the credentials owner-only (0600) and reads them back; a damaged file reads as none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-demo-'));
    try {
      const credentials = {
        sellerLogin: 'demo@feira.test',
        sellerPassword: 'demo-pw',
        clientId: 'client_x',
        clientSecret: 'secret',
        redirectUri: 'http://127.0.0.1:8080/demo/callback',
        tenants: [{ id: 't1', name: 'Store' }],
      };
      const path = writeDemoCredentials(dir, credentials);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readDemoCredentials(dir)).toEqual(credentials);
      writeFileSync(join(dir, DEMO_CREDENTIALS_FILE), '{not json');
      expect(readDemoCredentials(dir)).toBeUndefined();
      expect(readDemoCredentials(join(dir, 'missing'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spec "Consent by redirect": the login URL carries client_id, redirect_uri, scope, response_type=code, choose_tenants', () => {
    const url = new URL(
      demoLoginUrl('http://127.0.0.1:8080', { clientId: 'client_x', redirectUri: 'http://127.0.0.1:8080/demo/callback' }),
    );
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:8080/login');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'client_x',
      redirect_uri: 'http://127.0.0.1:8080/demo/callback',
      scope: 'open:portfolio:read open:order-order:read open:webhook:write',
      response_type: 'code',
      choose_tenants: 'true',
    });
  });
});
