import { brotliDecompressSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';
import { ConsoleSession, operatorSession, sellerSession } from '../console/console-session.js';
import { createOrders } from '../lists/list-fixtures.js';
import { SELLER_SCOPES, signup } from '../webhooks/webhook-kit.js';

/**
 * Page weight (D68, docs/console.md): the bytes a browser transfers for a
 * console page with brotli, the page itself plus every stylesheet, module
 * (and what it imports) and the favicon it names. The first page stays
 * within 30 KB, a chart page within 60 KB.
 */
const FIRST_PAGE_BYTES = 30 * 1024;
const CHART_PAGE_BYTES = 60 * 1024;

/** Transferred bytes of a page and everything it loads, each asset counted once. */
async function pageWeight(app: FastifyInstance, session: ConsoleSession, url: string) {
  const page = await session.get(url, { 'accept-encoding': 'br' });
  expect(page.statusCode, url).toBeLessThan(500);
  expect(page.headers['content-encoding'], url).toBe('br');
  const html = brotliDecompressSync(page.rawPayload).toString();
  const assets = new Set<string>([
    ...[...html.matchAll(/<link rel="(?:stylesheet|icon)" href="([^"]+)"/g)].map((m) => m[1] as string),
    ...[...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1] as string),
    // A module a page's script imports only where it draws a chart (the subscription page: data-charts).
    ...[...html.matchAll(/data-charts="([^"]+)"/g)].map((m) => m[1] as string),
  ]);
  let bytes = page.rawPayload.length;
  const queue = [...assets];
  const loaded = new Set<string>();
  while (queue.length > 0) {
    const asset = queue.shift() as string;
    if (loaded.has(asset)) continue;
    loaded.add(asset);
    const answer = await app.inject({ method: 'GET', url: asset, headers: { 'accept-encoding': 'br' } });
    expect(answer.statusCode, asset).toBe(200);
    bytes += answer.rawPayload.length;
    if (asset.endsWith('.js')) {
      const body = answer.headers['content-encoding'] === 'br' ? brotliDecompressSync(answer.rawPayload).toString() : answer.body;
      for (const m of body.matchAll(/from '\.\/([^']+)'/g)) queue.push(`/console/assets/${m[1]}`);
    }
  }
  return { bytes, files: loaded.size + 1 };
}

describe('console page weight', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform();
  });
  afterAll(() => platform.close());

  it('D68: the first page (sign-in) transfers at most 30 KB with everything it loads, a chart page at most 60 KB; each page weighed', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await createOrders(platform, tenantId, 20);
    const app = await platform.createClient();
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
    const signed = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', 'https://127.0.0.1:9/hooks');
    const subscriptionId = (signed.json() as { subscriptions: Array<{ id: string }> }).subscriptions[0]?.id as string;
    const visitor = new ConsoleSession(platform.app);
    const me = await sellerSession(platform.app, seller);
    const operator = await operatorSession(platform.app);
    const pages: Array<[string, ConsoleSession, string, number | null]> = [
      ['Sign in (first page)', visitor, '/console', FIRST_PAGE_BYTES],
      ['Your stores', me, '/console', FIRST_PAGE_BYTES],
      ['Webhooks', me, `/console/stores/${tenantId}/webhooks`, null],
      ['Subscription (chart)', me, `/console/stores/${tenantId}/webhooks/subscriptions/${subscriptionId}`, CHART_PAGE_BYTES],
      ['Connected apps', me, `/console/stores/${tenantId}/apps`, null],
      ['Shipping (chart)', me, `/console/stores/${tenantId}/shipping`, CHART_PAGE_BYTES],
      ['Records (orders, 20)', me, `/console/stores/${tenantId}/records/orders`, null],
      ['Time zone', me, '/console/time-zone', null],
      ['Operator: sellers and apps', operator, '/console/operator', null],
      ['Operator: health (chart)', operator, '/console/operator/health', CHART_PAGE_BYTES],
    ];
    const rows: string[] = [];
    for (const [name, session, url, budget] of pages) {
      const { bytes, files } = await pageWeight(platform.app, session, url);
      rows.push(
        `| ${name} | \`${url.replace(tenantId, '{store}').replace(subscriptionId, '{id}')}\` | ${files} | ${(bytes / 1024).toFixed(1)} KB |`,
      );
      if (budget !== null) expect(bytes, name).toBeLessThanOrEqual(budget);
    }
    // The table docs/console.md shows (run with FEIRA_PRINT_WEIGHTS=1 to print it).
    if (process.env.FEIRA_PRINT_WEIGHTS) console.log(`\n${rows.join('\n')}`);
  });
});
