import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testConfig, testDatabaseTargets } from '../testing.js';

const METRICS_TOKEN = 'test-metrics-token-0123456789';

/**
 * `/metrics` behind `--metrics-token` (docs/security.md, metrics disclosure):
 * Prometheus sends the token as a bearer token; a scrape without it learns
 * nothing but how to authenticate.
 */
describe.each(testDatabaseTargets())('the metrics token on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { config: testConfig({ metricsToken: METRICS_TOKEN }) });
  });
  afterAll(() => platform.close());

  it('a scrape without the token, or with another, is a 401 with the metrics realm; with it, the metrics', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-metrics-token' }]) {
      const refused = await platform.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="feira-metrics"');
      expect(refused.json()).toEqual({
        message: 'The metrics token is required',
        slug: 'UNAUTHORIZED',
        details: [],
        request_id: expect.any(String),
      });
    }
    const scraped = await platform.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toContain('# HELP');
  });
});
