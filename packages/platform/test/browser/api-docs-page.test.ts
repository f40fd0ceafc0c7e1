import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { RECORD_KINDS } from '../../src/records/index.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { platformInChromium } from './browser-kit.js';

const [target] = testDatabaseTargets();

describe('/docs in Chromium', () => {
  let platform: ListeningPlatform;
  let browser: Browser;
  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  it('OpenAPI 3.1: /docs shows Feira’s name, the seller API before the admin API, and the webhooks section, with nothing loaded from another origin', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(platform.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    await page.goto(`${platform.url}/docs`);
    await page.locator('.opblock-tag').first().waitFor();
    expect(await page.title()).toBe('Feira API');
    expect(await page.locator('.info .title').textContent()).toContain('Feira seller platform API');
    const groups = await page.locator('.opblock-tag').evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-tag')));
    // The seller API opens the page: one group per record kind, in the registry's order, then the rest.
    expect(groups.slice(0, RECORD_KINDS.length)).toEqual(RECORD_KINDS.map((kind) => kind.table));
    expect(groups.indexOf('orders')).toBeLessThan(groups.indexOf('admin'));
    await page.getByText('Webhooks', { exact: true }).waitFor();
    expect(await page.locator('text=shippingQuote').count()).toBeGreaterThan(0);
    expect(foreign).toEqual([]);
    await page.close();
  }, 120_000);
});
