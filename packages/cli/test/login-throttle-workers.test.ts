// The login throttle holds across API workers, because its counters
// live in PostgreSQL (identity/attempt-throttle.ts), not in a process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { LOGIN_ACCOUNT_POLICY } from '../../platform/src/identity/login-throttle.js';
import { formFields, loginUrl, PageClient } from '../../platform/src/identity/test-support/page-client.js';
import {
  createTestPlatform,
  sharedDatabaseUrl,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  testConfig,
  testDatabaseTargets,
} from '../../platform/src/testing.js';
import { childPids, type FeiraProcess, runFeira, servingWorkerPids } from './feira-process.js';

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;
const REDIRECT = 'https://integrator.example/callback';
const pgTarget = testDatabaseTargets().find((t) => t.dialect === 'postgres');

describe.runIf(pgTarget)('login throttle across API workers', { timeout: 600_000 }, () => {
  let platform: TestPlatform | undefined;
  let api: FeiraProcess | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    if (api) {
      for (const pid of childPids(api.child.pid as number)) process.kill(pid, 'SIGKILL');
      await api.stop('SIGKILL');
    }
    await platform?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('wrong passwords spread over two API workers are counted together: the allowance is checked once, not once per worker', async () => {
    platform = await createTestPlatform(pgTarget as NonNullable<typeof pgTarget>);
    // Checks at the platform's own cost: slow enough that every attempt is admitted or refused before the
    // first failure is counted, so counting per worker would show as up to twice the allowance checked.
    const seller = await platform.createSeller({ fullPasswordCost: true });
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const { url } = await sharedDatabaseUrl(platform.database);
    dir = mkdtempSync(join(tmpdir(), 'feira-throttle-'));
    api = runFeira(
      ['start', '--workers', '2', '--no-dispatcher', '--port', '0', '--seed', 'none', '--data-dir', dir, '--log-level', 'silent'],
      { FEIRA_DATABASE: url, FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN, FEIRA_SECRET_KEY: testConfig().secretKey },
    );
    const base = `http://127.0.0.1:${(await api.waitFor(LISTENING, 240_000))[1]}`;
    await api.waitFor(/Worker pid \d+ serving/, 240_000);

    // Both workers answer on the shared port: new connections reach both (each scrape names its process).
    const workerPids = await servingWorkerPids(base, 2);
    const children = childPids(api.child.pid as number).map(String);
    expect([...workerPids].every((pid) => children.includes(pid))).toBe(true);

    // One login form per attempt, each on its own connection, all at once: the cluster spreads them over both workers.
    const attempts = 4 * LOGIN_ACCOUNT_POLICY.allowance;
    const statuses = await Promise.all(
      Array.from({ length: attempts }, async () => {
        const dispatcher = new Agent({ connections: 1 });
        try {
          const browser = new PageClient(base, dispatcher);
          const page = await browser.request(
            'GET',
            loginUrl(base, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
          );
          const answer = await browser.request('POST', '/login', {
            ...formFields(page.body, '/login'),
            login: seller.login,
            password: 'wrong password',
          });
          return answer.status;
        } finally {
          await dispatcher.close();
        }
      }),
    );
    // 401: a password hashed and compared. Counted per worker, two workers would check up to twice the
    // allowance; counted together, never more than once (fewer only if a check finished before the others
    // were admitted, and the account's back-off then blocked them, as in identity/login-throttle.test.ts).
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(LOGIN_ACCOUNT_POLICY.allowance);
    expect(statuses.filter((s) => s === 429)).toHaveLength(attempts - checked);
  });
});
