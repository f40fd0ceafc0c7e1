import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';

/** The JavaScript a console page loads stays under 150 KB gzip (docs/console.md states the budget). */
const BUDGET_BYTES = 150 * 1024;

describe('console JavaScript budget', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform();
  });
  afterAll(() => platform.close());

  it('every script of the first page, gzipped, fits in 150 KB', async () => {
    const page = await platform.app.inject({ method: 'GET', url: '/console' });
    const sources = [...page.body.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1] as string);
    expect(sources.length).toBeGreaterThan(0);
    let total = 0;
    for (const src of sources) {
      const script = await platform.app.inject({ method: 'GET', url: src });
      expect(script.statusCode, src).toBe(200);
      total += gzipSync(script.rawPayload).length;
    }
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('a chart page (shipping, health) with its module and uPlot, gzipped, fits in 150 KB too', async () => {
    for (const module of ['/console/assets/shipping.js', '/console/assets/health.js']) {
      let total = 0;
      for (const src of ['/console/assets/console.js', module, '/console/assets/charts.js', '/console/assets/uplot.esm.js']) {
        const script = await platform.app.inject({ method: 'GET', url: src });
        expect(script.statusCode, src).toBe(200);
        total += gzipSync(script.rawPayload).length;
      }
      // The modules import each other by these paths: a rename would break the charts.
      const body = (await platform.app.inject({ method: 'GET', url: module })).body;
      expect(body).toContain("from './charts.js'");
      const charts = (await platform.app.inject({ method: 'GET', url: '/console/assets/charts.js' })).body;
      expect(charts).toContain("from './uplot.esm.js'");
      expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
    }
  });
});
