import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoginFile, loginTokens, readLogin, writeLogin } from './login-store.js';

describe('the stored login of feira login / feira token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-login-'));
  const refreshes: URLSearchParams[] = [];
  // The identity provider's token endpoint: answers every refresh with a rotated pair (spec-notes I5).
  const idp = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    refreshes.push(new URLSearchParams(body));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        access_token: `access-${refreshes.length + 1}`,
        refresh_token: `refresh-${refreshes.length + 1}`,
        token_type: 'Bearer',
        expires_in: 7200,
        scope: 'open:webhook:write',
        created_at: 1,
      }),
    );
  });
  afterAll(() => {
    idp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const login = (url: string, expiresAt: number): LoginFile => ({
    url,
    client_id: 'client_demo',
    client_secret: 'demo-secret',
    seller_login: 'demo@feira.test',
    tenants: [{ id: 't1', name: 'Feira Demo Store' }],
    tokens: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt, scope: 'open:webhook:write' },
  });

  it('a fresh access token is returned as stored, without calling the identity provider', async () => {
    writeLogin(dir, login('http://127.0.0.1:1', Date.now() + 3_600_000));
    const { manager, key } = loginTokens(dir, readLogin(dir)!);
    expect(await manager.accessToken(key)).toBe('access-1');
    expect(statSync(join(dir, 'login.json')).mode & 0o777).toBe(0o600);
  });

  it('spec-notes I5: one expiring within a minute is refreshed first, and the rotated refresh token is what the file keeps (0600)', async () => {
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    writeLogin(dir, login(url, Date.now() + 30_000));
    const { manager, key } = loginTokens(dir, readLogin(dir)!);
    expect(await manager.accessToken(key)).toBe('access-2');
    expect(refreshes.at(-1)?.get('grant_type')).toBe('refresh_token');
    expect(refreshes.at(-1)?.get('refresh_token')).toBe('refresh-1');
    expect(readLogin(dir)?.tokens).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(readLogin(dir)?.tenants).toEqual([{ id: 't1', name: 'Feira Demo Store' }]);
    expect(statSync(join(dir, 'login.json')).mode & 0o777).toBe(0o600);
  });
});
