import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';

/** Issue 20: the JavaScript a console page loads stays under 150 KB gzip (docs/console.md states the budget). */
const BUDGET_BYTES = 150 * 1024;

describe('console JavaScript budget', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform();
  });
  afterAll(() => platform.close());

  it('issue 20: every script of the first page, gzipped, fits in 150 KB', async () => {
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
});
