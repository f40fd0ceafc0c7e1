import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CONSOLE_SECTIONS } from '../console/console-sections.js';
import { ManualClock } from '../core/clock.js';
import { PlatformError } from '../core/platform-error.js';
import { createPlatform, type Platform } from '../platform.js';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '../testing.js';

/**
 * Every 503 the platform sends carries Retry-After (RFC 9110 §10.2.3) in the
 * platform error shape (http/service-unavailable.ts, D98). The last test lists
 * the source files that can answer 503 and fails when a new one appears, so it
 * gets a test here too.
 */

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Where each 503 is answered, and the test that shows its Retry-After. */
const SOURCES_OF_503: Record<string, string> = {
  'http/service-unavailable.ts': 'starting up, shutting down and the default below (this file)',
  'core/refusals.ts':
    'the catalogue: starting up, shutting down (this file) and the database unavailable (answered by http/error-handler.ts: http/database-unavailable.test.ts), each with its Retry-After',
  'identity/oauth-error.ts': 'the token endpoint with the database unavailable: http/database-unavailable.test.ts',
  'http/health-routes.ts': 'readiness: http/health-routes.test.ts',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

async function expectRetryAfter(response: Awaited<ReturnType<typeof fetch>>, message: string) {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await response.json()).toEqual({ message, slug: 'SERVICE_UNAVAILABLE', details: [], request_id: expect.any(String) });
}

describe.each(testDatabaseTargets())('every 503 carries Retry-After on $dialect (D98)', (target) => {
  let platform: Platform | undefined;
  let test: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.close();
    await test?.close();
    platform = undefined;
    test = undefined;
  });

  function start(beforeServe?: Parameters<typeof createPlatform>[0]['beforeServe']) {
    return target.open().then(async (database) => {
      const started = await createPlatform({
        config: { mode: 'sandbox', adminToken: TEST_ADMIN_TOKEN, secretKey: 'test-secret-key-not-for-production' },
        database,
        clock: new ManualClock(),
        roles: { api: true, dispatcher: false },
        listen: { host: '127.0.0.1', port: 0, shutdownGraceMs: 0 },
        ...(beforeServe ? { beforeServe } : {}),
      });
      started.deferClose(() => database.close());
      return started;
    });
  }

  it('starting up: the bound socket answers 503 "Starting up" with Retry-After until the app is ready', async () => {
    let early: Awaited<ReturnType<typeof fetch>> | undefined;
    platform = await start(async ({ context }) => {
      early = await fetch(`${context.config.publicUrl}/health/live`);
    });
    expect(early).toBeDefined();
    await expectRetryAfter(early as Awaited<ReturnType<typeof fetch>>, 'Starting up');
    expect((await fetch(`${platform.listenUrl}/health/live`)).status).toBe(200);
  });

  it('shutting down: a request that reaches the app while it closes is a 503 "Shutting down" with Retry-After, not Fastify\'s bare one', async () => {
    platform = await start();
    await platform.app?.close();
    await expectRetryAfter(await fetch(`${platform.listenUrl}/health/live`), 'Shutting down');
  });

  it('any other 503 (here thrown by a page an embedding app added) gets the default Retry-After', async () => {
    test = await createTestPlatform(target, {
      consoleSections: [
        ...CONSOLE_SECTIONS,
        {
          name: 'down-for-maintenance',
          routes: async (app) => {
            app.get('/console/maintenance', async () => {
              throw new PlatformError('SERVICE_UNAVAILABLE', { message: 'Down for maintenance' });
            });
          },
        },
      ],
    });
    const res = await test.app.inject({ method: 'GET', url: '/console/maintenance' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
  });
});

describe('the sources of a 503', () => {
  it('D98: every source file that answers 503 is one of the enumerated ones, each with its Retry-After test', () => {
    const emitting = /\b(code|writeHead)\(\s*503\b|statusCode\s*=\s*503|'SERVICE_UNAVAILABLE'|unavailable:\s*true/;
    const found = sourceFiles(SRC)
      .filter((path) => emitting.test(readFileSync(path, 'utf8')))
      .map((path) => relative(SRC, path).split('\\').join('/'))
      .sort();
    expect(found).toEqual(Object.keys(SOURCES_OF_503).sort());
  });
});
