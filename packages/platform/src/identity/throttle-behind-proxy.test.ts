import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../testing.js';
import { CLIENT_PAIR_POLICY } from './client-authentication.js';

// Behind a reverse proxy every socket is the proxy's. With `--trust-proxy` naming it, the client-secret
// throttle counts the address the proxy forwards; without it, a forwarded address is never believed.

const PROXY = '10.0.0.5';

function tokenCall(platform: TestPlatform, remoteAddress: string, clientId: string, secret: string, forwardedFor?: string) {
  return platform.app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
}

describe.each(testDatabaseTargets())('client-secret throttle behind a reverse proxy on $dialect', (target) => {
  let proxied: TestPlatform;
  let direct: TestPlatform;
  beforeAll(async () => {
    proxied = await createTestPlatform(target, { config: testConfig({ trustProxy: [PROXY] }) });
    direct = await createTestPlatform(target);
  });
  afterAll(async () => {
    await proxied?.close();
    await direct?.close();
  });

  it('spec-notes I2: through a trusted proxy, strangers guessing a client_id are throttled by their own forwarded address and the owner behind the same proxy is never refused', async () => {
    const client = await proxied.createClient();
    const strangers = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5', '203.0.113.6'];
    const perStranger = CLIENT_PAIR_POLICY.allowance + 5;
    for (const stranger of strangers) {
      const statuses: number[] = [];
      for (let i = 0; i < perStranger; i++) {
        statuses.push((await tokenCall(proxied, PROXY, client.clientId, `wrong-${i}`, stranger)).statusCode);
      }
      expect(statuses.filter((s) => s === 401)).toHaveLength(CLIENT_PAIR_POLICY.allowance);
      expect(statuses.filter((s) => s === 429)).toHaveLength(perStranger - CLIENT_PAIR_POLICY.allowance);
    }
    // The owner's request comes through the same proxy socket address, forwarded from its own address.
    const owner = await tokenCall(proxied, PROXY, client.clientId, client.clientSecret, '198.51.100.7');
    expect(owner.statusCode).toBe(400);
    expect(owner.json().error).toBe('invalid_grant');
  });

  it('spec-notes I2: without --trust-proxy, a client naming other addresses in X-Forwarded-For is still counted as its own socket address', async () => {
    const client = await direct.createClient();
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_PAIR_POLICY.allowance + 5; i++) {
      statuses.push((await tokenCall(direct, '203.0.113.50', client.clientId, `wrong-${i}`, `198.51.100.${i + 1}`)).statusCode);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    // And the forwarded address it claimed is not the one refused: a real client there is still served.
    const elsewhere = await tokenCall(direct, '198.51.100.1', client.clientId, client.clientSecret);
    expect(elsewhere.json().error).toBe('invalid_grant');
  });
});
