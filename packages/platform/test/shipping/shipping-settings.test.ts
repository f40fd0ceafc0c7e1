// The seller's quote settings in the admin API (spec-notes Q1, W9; spec
// "Seller-implemented shipping-quote endpoint": HTTPS, no port, called exactly).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testConfig, testDatabaseTargets } from '../../src/testing.js';
import { admin, putSettings } from './shipping-kit.js';

const settings = (url: string, centres: string[] = []) => ({
  method: 'seller_api',
  url,
  distribution_centers: centres.map((id) => ({ id })),
});

describe.each(testDatabaseTargets())('shipping settings on $dialect', (target) => {
  let strict: TestPlatform;
  let sandbox: TestPlatform;
  let strictTenant: string;
  let sandboxTenant: string;
  beforeAll(async () => {
    strict = await createTestPlatform(target, { config: testConfig({ mode: 'strict' }) });
    // The sandbox app shares the strict app's database (closed once, by the strict one).
    const shared = { ...strict.database, close: async () => {} };
    sandbox = await createTestPlatform({ dialect: target.dialect, open: async () => shared });
    strictTenant = (await strict.createSeller()).tenantIds[0] as string;
    sandboxTenant = (await sandbox.createSeller()).tenantIds[0] as string;
  });
  afterAll(async () => {
    await sandbox.close();
    await strict.close();
  });

  it('spec-notes Q1: stores method, URL (query string included, verbatim) and distribution centres; GET reads them back', async () => {
    const url = 'https://93.184.216.34/frete?token=s3cr%2Ft&seller=42';
    const put = await putSettings(strict, strictTenant, settings(url, ['CD-SP', 'CD-RJ']));
    expect(put.statusCode).toBe(200);
    const get = await strict.app.inject({ method: 'GET', url: `/admin/v1/tenants/${strictTenant}/shipping`, headers: admin });
    expect(get.json()).toEqual({ method: 'seller_api', url, distribution_centers: [{ id: 'CD-SP' }, { id: 'CD-RJ' }] });
    // A second PUT replaces the settings.
    await putSettings(strict, strictTenant, settings('https://93.184.216.34/v2'));
    const again = await strict.app.inject({ method: 'GET', url: `/admin/v1/tenants/${strictTenant}/shipping`, headers: admin });
    expect(again.json()).toEqual({ method: 'seller_api', url: 'https://93.184.216.34/v2', distribution_centers: [] });
  });

  it.each([
    ['http:// in strict mode', 'http://93.184.216.34/quote', 'must use the HTTPS scheme'],
    ['a port, even 443', 'https://93.184.216.34:443/quote', 'must not contain a port'],
    ['a port 8443', 'https://93.184.216.34:8443/quote', 'must not contain a port'],
    ['a loopback address (SSRF guard)', 'https://127.0.0.1/quote', 'refused address'],
    ['localhost (SSRF guard)', 'https://localhost/quote', 'refused address'],
    ['a private address (SSRF guard)', 'https://10.1.2.3/quote', 'refused address'],
    ['a link-local address (SSRF guard)', 'https://169.254.169.254/latest', 'refused address'],
    ['an IPv4-mapped private address (SSRF guard)', 'https://[::ffff:192.168.0.1]/quote', 'refused address'],
    ['an IPv4-mapped loopback address in hex (SSRF guard)', 'https://[::ffff:7f00:1]/quote', 'refused address'],
    ['a NAT64 address (SSRF guard)', 'https://[64:ff9b::a00:1]/quote', 'refused address'],
    ['a 6to4 address (SSRF guard)', 'https://[2002:c0a8:1::1]/quote', 'refused address'],
    ['a TEST-NET address (SSRF guard)', 'https://198.51.100.4/quote', 'refused address'],
    ['not a URL', 'seller.example/quote', 'absolute URL'],
    ['credentials', 'https://user:pass@93.184.216.34/quote', 'credentials'],
    ['a fragment', 'https://93.184.216.34/quote#x', 'fragment'],
    ['a space', 'https://93.184.216.34/qu ote', 'printable ASCII'],
    ['ftp://', 'ftp://93.184.216.34/quote', 'HTTPS'],
  ])('spec-notes Q1 / W9: strict mode refuses %s with a 422 naming url', async (_name, url, message) => {
    const res = await putSettings(strict, strictTenant, settings(url));
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      expect.objectContaining({ field: 'url', location: 'body', message: expect.stringContaining(message) }),
    ]);
  });

  it('spec-notes Q1: sandbox mode also allows http://, ports and loopback', async () => {
    const res = await putSettings(sandbox, sandboxTenant, settings('http://127.0.0.1:4010/quote?store=1'));
    expect(res.statusCode).toBe(200);
    const refused = await putSettings(sandbox, sandboxTenant, settings('http://10.0.0.8:4010/quote'));
    expect(refused.statusCode).toBe(422);
  });

  it.each([
    [
      'another method (spec Service 3: only seller_api is specified)',
      { method: 'spreadsheet', url: 'https://93.184.216.34/q', distribution_centers: [] },
      'method',
    ],
    ['a missing url', { method: 'seller_api', distribution_centers: [] }, 'url'],
    ['a 33-character centre id', settings('https://93.184.216.34/q', ['c'.repeat(33)]), 'distribution_centers.0.id'],
    ['a repeated centre id', settings('https://93.184.216.34/q', ['CD-1', 'CD-1']), 'distribution_centers.1.id'],
    ['an unknown field', { ...settings('https://93.184.216.34/q'), token: 'x' }, 'token'],
  ])('spec-notes Q1: %s is a 422 naming the field', async (_name, body, field) => {
    const res = await putSettings(strict, strictTenant, body);
    expect(res.statusCode).toBe(422);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('admin API: no admin token is a 401; an unknown tenant a 404; a tenant without settings a 404 on GET', async () => {
    const anonymous = await strict.app.inject({
      method: 'PUT',
      url: `/admin/v1/tenants/${strictTenant}/shipping`,
      payload: settings('https://93.184.216.34/q'),
    });
    expect(anonymous.statusCode).toBe(401);
    const unknown = await putSettings(strict, strict.app.platform.random.uuid(), settings('https://93.184.216.34/q'));
    expect(unknown.statusCode).toBe(404);
    const fresh = (await strict.createSeller()).tenantIds[0] as string;
    const none = await strict.app.inject({ method: 'GET', url: `/admin/v1/tenants/${fresh}/shipping`, headers: admin });
    expect(none.statusCode).toBe(404);
  });
});
