import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { OAuthError, oauthErrorHandler } from '../identity/oauth-error.js';
import { platformErrorHandler } from './error-handler.js';

// How a request the database could not serve is answered. The errors are the ones pg raises (the
// fault test, packages/cli/test/database-outage.test.ts, gets them from a real server it stops and
// kills); SQLite is a file in the process and has no outage to answer for.

/** An app whose one route fails with `error`, under the given error handler. */
async function failingWith(error: unknown, handler: typeof platformErrorHandler | typeof oauthErrorHandler) {
  const app = Fastify();
  if (handler === platformErrorHandler) app.setErrorHandler(platformErrorHandler);
  else app.setErrorHandler(oauthErrorHandler);
  app.get('/fails', async () => {
    throw error;
  });
  await app.ready();
  return app;
}

const pgErrors: Array<[string, unknown]> = [
  [
    'connection refused (server stopped)',
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  ],
  [
    'admin shutdown (pg_terminate_backend)',
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  ],
  [
    'crash shutdown (a backend was killed)',
    Object.assign(new Error('terminating connection because of crash'), { code: '57P02' }),
  ],
  ['in recovery', Object.assign(new Error('the database system is in recovery mode'), { code: '57P03' })],
  ['socket closed under a query', new Error('Connection terminated unexpectedly')],
  ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
];

describe('a request the database could not serve: 503 + Retry-After, not 500', () => {
  it.each(pgErrors)(
    'platform API, %s: 503 SERVICE_UNAVAILABLE in the uniform error shape (spec-notes L9)',
    async (_what, error) => {
      const app = await failingWith(error, platformErrorHandler);
      const res = await app.inject({ method: 'GET', url: '/fails' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        message: 'The database is unavailable; retry later',
        slug: 'SERVICE_UNAVAILABLE',
        details: [],
        request_id: expect.any(String),
      });
      expect(res.body).not.toContain('5432');
    },
  );

  it.each(pgErrors)(
    'token endpoint, %s: 503 temporarily_unavailable with Retry-After and no-store (RFC 6749 §5.2)',
    async (_what, error) => {
      const app = await failingWith(error, oauthErrorHandler);
      const res = await app.inject({ method: 'GET', url: '/fails' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    },
  );

  it('any other failure stays a 500 without internals, and a throttle stays a 429', async () => {
    const broken = Object.assign(new Error('relation "orders" does not exist'), { code: '42P01' });
    const api = await (await failingWith(broken, platformErrorHandler)).inject({ method: 'GET', url: '/fails' });
    expect(api.statusCode).toBe(500);
    expect(api.headers['retry-after']).toBeUndefined();
    expect(api.json()).toMatchObject({ slug: 'INTERNAL_ERROR' });
    const token = await (await failingWith(broken, oauthErrorHandler)).inject({ method: 'GET', url: '/fails' });
    expect(token.statusCode).toBe(500);
    expect(token.json()).toMatchObject({ error: 'server_error' });
    const throttle = new OAuthError('temporarily_unavailable', 'Too many attempts', { retryAfterSeconds: 30 });
    const throttled = await (await failingWith(throttle, oauthErrorHandler)).inject({ method: 'GET', url: '/fails' });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('30');
  });
});
