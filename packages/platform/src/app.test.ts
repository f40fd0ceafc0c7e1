import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from './testing.js';

describe.each(testDatabaseTargets())('platform core on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  it('answers /health with {"status":"ok"} once migrations ran', async () => {
    const res = await platform.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
    const echoed = await platform.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await platform.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 in the platform error shape (spec-notes L9)', async () => {
    const res = await platform.app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ slug: 'NOT_FOUND', details: [] });
    expect(res.json().request_id).toBe(res.headers['x-request-id']);
  });

  it('serves an OpenAPI 3.1 document and the browsable reference at /docs', async () => {
    const doc = await platform.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.json().openapi).toBe('3.1.0');
    expect(Object.keys(doc.json().paths)).toContain('/health');
    const ui = await platform.app.inject({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain('swagger');
  });
});
