// The sandbox's fake Melhor Envio (D60): `feira start --demo-gateway
// melhor_envio` starts it beside the platform and the first demo store quotes
// through it, so the gateway method can be seen working without an account.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../src/server.js';

const ADMIN_TOKEN = 'demo-gateway-admin-token-0123456789';

describe('sandbox demo gateway', () => {
  let dir: string;
  let running: RunningPlatform;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-demo-gateway-'));
    running = await startPlatform({
      databaseUrl: `sqlite:${join(dir, 'feira.db')}`,
      host: '127.0.0.1',
      port: 0,
      config: { mode: 'sandbox', adminToken: ADMIN_TOKEN, secretKey: 'demo-gateway-secret-key-0123456789' },
      dataDir: join(dir, 'data'),
      seed: 'demo',
      logger: false,
      demoGateway: 'melhor_envio',
    });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec-notes Q8 (D60): with --demo-gateway melhor_envio the first demo store quotes through the fake Melhor Envio; the other keeps the demo seller', async () => {
    expect(running.demoGatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [first, second] = running.demo?.tenants ?? [];
    expect(first && second).toBeTruthy();
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const settings = await fetch(`${running.listenUrl}/admin/v1/tenants/${first?.id}/shipping`, { headers });
    expect(await settings.json()).toEqual({
      method: 'gateway',
      gateway: { kind: 'melhor_envio' },
      distribution_centers: [
        { id: 'CD-SP', zipcode: '01001000' },
        { id: 'CD-RJ', zipcode: '20040002' },
      ],
    });
    const other = await fetch(`${running.listenUrl}/admin/v1/tenants/${second?.id}/shipping`, { headers });
    expect(((await other.json()) as { method: string }).method).toBe('seller_api');

    const products = await running.platform.database.db
      .selectFrom('products')
      .select('sku')
      .where('tenant_id', '=', first?.id as string)
      .orderBy('sku')
      .limit(2)
      .execute();
    const quote = await fetch(`${running.listenUrl}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant_id: first?.id,
        zipcode: '20040002',
        items: products.map((p) => ({ sku: p.sku, quantity: 1 })),
      }),
    });
    const body = (await quote.json()) as { available: boolean; packages: { options: { id: string; source: string }[] }[] };
    expect(body.available).toBe(true);
    expect(body.packages[0]?.options.map((o) => [o.id, o.source])).toEqual([
      ['melhor-envio-2', 'gateway'],
      ['melhor-envio-1', 'gateway'],
    ]);
  });
});
