import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  FeiraApiError,
  FeiraClient,
  FeiraConnectionError,
  FeiraTimeoutError,
  introspect,
  type OAuthError,
  type RetryOptions,
  refresh,
} from '@feira/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../src/test-support/listen.js';

// A real HTTP server on loopback that answers each request with the next scripted step.
type Step = (req: IncomingMessage, res: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const reset: Step = (req) => req.socket.destroy();
/** Never answers: the client's time limit has to end the exchange. */
const silent: Step = () => {};
const refused = (status: 429 | 503, retryAfter?: string) =>
  json(
    status,
    { message: 'Slow down', slug: status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE' },
    retryAfter ? { 'retry-after': retryAfter } : {},
  );

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

async function scripted(...steps: Step[]) {
  const seen: Array<{ method: string; url: string; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const step = steps[seen.length - 1] ?? json(500, { message: 'script ran out', slug: 'INTERNAL' });
      step(req, res);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  servers.push(close);
  return { url, seen };
}

/** Records every wait instead of waiting: the backoff and Retry-After are read, not slept. */
function recordingRetry(extra: RetryOptions = {}): RetryOptions & { waits: number[] } {
  const waits: number[] = [];
  return { waits, random: () => 0.5, sleep: async (ms) => void waits.push(ms), ...extra };
}

const ORDER = { id: 'o-1', status: 'new' };

describe('FeiraClient retries (D54: idempotent calls only, Retry-After first, then exponential backoff with jitter)', () => {
  it('a GET answered 429 with Retry-After: 7 waits 7 s, is sent again, and returns the 200 answer', async () => {
    const server = await scripted(refused(429, '7'), json(200, ORDER));
    const retry = recordingRetry();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    await expect(api.get('/v1/orders/o-1')).resolves.toEqual(ORDER);
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(retry.waits).toEqual([7000]);
  });

  it('Retry-After as an HTTP-date is honoured as the time until that date', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const server = await scripted(refused(503, inTwoMinutes), json(200, ORDER));
    const retry = recordingRetry();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: { ...retry, maxRetryAfterMs: 300_000 } });
    await expect(api.get('/v1/orders/o-1')).resolves.toEqual(ORDER);
    expect(retry.waits).toHaveLength(1);
    expect(retry.waits[0]).toBeGreaterThan(100_000);
    expect(retry.waits[0]).toBeLessThanOrEqual(120_000);
  });

  it('503 without Retry-After: backoff doubles with full jitter (random × base × 2^attempt), then the last 503 is thrown', async () => {
    const server = await scripted(refused(503), refused(503), refused(503));
    const retry = recordingRetry({ baseDelayMs: 1000 });
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    const error = await api.get('/v1/orders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeiraApiError);
    expect((error as FeiraApiError).status).toBe(503);
    expect(server.seen).toHaveLength(3); // the first attempt and DEFAULT_MAX_RETRIES (2) retries
    expect(retry.waits).toEqual([500, 1000]);
  });

  it('a Retry-After longer than maxRetryAfterMs is not waited out: the 429 is thrown at once with retryAfterMs', async () => {
    const server = await scripted(refused(429, '3600'), json(200, ORDER));
    const retry = recordingRetry();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    const error = (await api.get('/v1/orders').catch((e: unknown) => e)) as FeiraApiError;
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server.seen).toHaveLength(1);
    expect(retry.waits).toEqual([]);
  });

  it('a connection reset on a GET is retried and the next answer returned', async () => {
    const server = await scripted(reset, json(200, ORDER));
    const retry = recordingRetry();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    await expect(api.get('/v1/orders/o-1')).resolves.toEqual(ORDER);
    expect(server.seen).toHaveLength(2);
    expect(retry.waits).toHaveLength(1);
  });

  it('resets on every attempt end in FeiraConnectionError naming the attempts, with the network failure as cause', async () => {
    const server = await scripted(reset, reset, reset);
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    const error = (await api.get('/v1/orders').catch((e: unknown) => e)) as FeiraConnectionError;
    expect(error).toBeInstanceOf(FeiraConnectionError);
    expect(error.attempts).toBe(3);
    expect(error.cause).toBeInstanceOf(Error);
    expect(server.seen).toHaveLength(3);
  });

  it('PUT and DELETE are idempotent (RFC 9110 §9.2.2): retried on 503 like a GET', async () => {
    const server = await scripted(refused(503), json(200, { ok: true }), refused(503), json(200, { ok: true }));
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    await expect(api.request('PUT', '/v1/onboarding/signup', { body: { webhook: 'https://a.example/h' } })).resolves.toEqual({
      ok: true,
    });
    await expect(api.request('DELETE', '/v1/thing')).resolves.toEqual({ ok: true });
    expect(server.seen.map((s) => s.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
    // The retried PUT carries the same body.
    expect(server.seen[1]?.body).toBe(server.seen[0]?.body);
  });

  it('a POST is sent once: a 429 or 503 is thrown as is, a connection reset as FeiraConnectionError (the platform takes no Idempotency-Key)', async () => {
    const server = await scripted(refused(429, '1'), refused(503), reset);
    const retry = recordingRetry();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    expect(((await api.request('POST', '/v1/x', { body: {} }).catch((e: unknown) => e)) as FeiraApiError).status).toBe(429);
    expect(((await api.request('POST', '/v1/x', { body: {} }).catch((e: unknown) => e)) as FeiraApiError).status).toBe(503);
    const lost = (await api.request('POST', '/v1/x', { body: {} }).catch((e: unknown) => e)) as FeiraConnectionError;
    expect(lost).toBeInstanceOf(FeiraConnectionError);
    expect(lost.attempts).toBe(1);
    expect(server.seen).toHaveLength(3);
    expect(retry.waits).toEqual([]);
  });

  it('spec-notes I20: a POST refused by the app’s rate limit (429 with RateLimit) ran nothing, so it is sent again after Retry-After; the error and the client carry what RateLimit said', async () => {
    const limited = json(
      429,
      { message: 'Rate limit exceeded', slug: 'RATE_LIMITED' },
      { 'retry-after': '2', ratelimit: '"app";r=0;t=9' },
    );
    const server = await scripted(limited, json(201, ORDER, { ratelimit: '"app";r=4;t=3' }), limited);
    const retry = recordingRetry({ maxRetries: 1 });
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry });
    await expect(api.request('POST', '/v1/x', { body: { a: 1 } })).resolves.toEqual(ORDER);
    expect(retry.waits).toEqual([2000]);
    expect(server.seen.map((s) => s.body)).toEqual(['{"a":1}', '{"a":1}']);
    expect(api.rateLimit).toEqual({ remaining: 4, resetSeconds: 3 });
    const over = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry({ maxRetries: 0 }) });
    const error = (await over.request('POST', '/v1/x', { body: {} }).catch((e: unknown) => e)) as FeiraApiError;
    expect(error.slug).toBe('RATE_LIMITED');
    expect(error.retryAfterMs).toBe(2000);
    expect(error.rateLimit).toEqual({ remaining: 0, resetSeconds: 9 });
    expect(over.rateLimit).toEqual({ remaining: 0, resetSeconds: 9 });
  });

  it('PATCH is not retried either', async () => {
    const server = await scripted(refused(503), json(200, ORDER));
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    expect(((await api.request('PATCH', '/v1/x', { body: {} }).catch((e: unknown) => e)) as FeiraApiError).status).toBe(503);
    expect(server.seen).toHaveLength(1);
  });

  it('other errors (401, 404, 422, 500) are not retried', async () => {
    const server = await scripted(
      json(401, { message: 'no', slug: 'UNAUTHORIZED' }),
      json(404, { message: 'no', slug: 'NOT_FOUND' }),
      json(500, { message: 'no', slug: 'INTERNAL_SERVER_ERROR' }),
    );
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    for (const status of [401, 404, 500]) {
      expect(((await api.get('/v1/x').catch((e: unknown) => e)) as FeiraApiError).status).toBe(status);
    }
    expect(server.seen).toHaveLength(3);
  });

  it('maxRetries: 0 sends every call once', async () => {
    const server = await scripted(refused(503), json(200, ORDER));
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry({ maxRetries: 0 }) });
    expect(((await api.get('/v1/x').catch((e: unknown) => e)) as FeiraApiError).status).toBe(503);
    expect(server.seen).toHaveLength(1);
  });

  it("the caller's own abort is not retried: its reason is thrown", async () => {
    const server = await scripted(silent, json(200, ORDER));
    const controller = new AbortController();
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    const call = api.get('/v1/orders', { signal: controller.signal }).catch((e: unknown) => e);
    const deadline = Date.now() + 10_000;
    while (server.seen.length === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('user left'));
    expect(((await call) as Error).message).toBe('user left');
    expect(server.seen).toHaveLength(1);
  });
});

describe('FeiraClient time limit (D54)', () => {
  it('an answer that never comes ends in FeiraTimeoutError after timeoutMs; an idempotent call is tried again first', async () => {
    const server = await scripted(silent, silent);
    const api = new FeiraClient({
      baseUrl: server.url,
      accessToken: 't',
      timeoutMs: 200,
      retry: recordingRetry({ maxRetries: 1 }),
    });
    const error = (await api.get('/v1/orders').catch((e: unknown) => e)) as FeiraTimeoutError;
    expect(error).toBeInstanceOf(FeiraTimeoutError);
    expect(error).toBeInstanceOf(FeiraConnectionError);
    expect(error.timeoutMs).toBe(200);
    expect(error.attempts).toBe(2);
    expect(server.seen).toHaveLength(2);
  });

  it('a slow attempt is followed by a retry that answers', async () => {
    const server = await scripted(silent, json(200, ORDER));
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', timeoutMs: 200, retry: recordingRetry() });
    await expect(api.get('/v1/orders/o-1')).resolves.toEqual(ORDER);
  });

  it('the limit covers the whole answer: headers sent but a body that stops midway is a timeout too', async () => {
    const stalled: Step = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    };
    const server = await scripted(stalled);
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', timeoutMs: 200, retry: { maxRetries: 0 } });
    expect(await api.get('/v1/orders/o-1').catch((e: unknown) => e)).toBeInstanceOf(FeiraTimeoutError);
  });

  it('a per-call timeoutMs overrides the default (30 s), and a POST that times out is not sent again', async () => {
    const server = await scripted(silent, json(200, ORDER));
    const api = new FeiraClient({ baseUrl: server.url, accessToken: 't', retry: recordingRetry() });
    const error = (await api
      .request('POST', '/v1/x', { body: {}, timeoutMs: 150 })
      .catch((e: unknown) => e)) as FeiraTimeoutError;
    expect(error).toBeInstanceOf(FeiraTimeoutError);
    expect(error.attempts).toBe(1);
    expect(server.seen).toHaveLength(1);
  });
});

describe('OAuth calls (D54): introspect is retried, a refresh is sent once', () => {
  const credentials = (authUrl: string) => ({ authUrl, clientId: 'c', clientSecret: 's', retry: recordingRetry() });

  it('RFC 7662: introspect answered 429 with Retry-After, then 200, returns the answer', async () => {
    const server = await scripted(
      json(429, { error: 'temporarily_unavailable' }, { 'retry-after': '2' }),
      json(200, { active: false }),
    );
    const options = credentials(server.url);
    await expect(introspect({ ...options, token: 'x' })).resolves.toEqual({ active: false });
    expect(options.retry.waits).toEqual([2000]);
    expect(server.seen.map((s) => s.url)).toEqual(['/oauth/introspect', '/oauth/introspect']);
  });

  it('spec-notes I5: a refresh (the refresh token rotates on use) is never sent twice, even after a reset', async () => {
    const server = await scripted(reset, json(200, {}));
    const error = await refresh({ ...credentials(server.url), refreshToken: 'r' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeiraConnectionError);
    expect(server.seen).toHaveLength(1);
    const limited = await scripted(json(429, { error: 'temporarily_unavailable' }, { 'retry-after': '1' }));
    const throttled = await refresh({ ...credentials(limited.url), refreshToken: 'r' }).catch((e: unknown) => e);
    expect((throttled as OAuthError).code).toBe('temporarily_unavailable');
    expect(limited.seen).toHaveLength(1);
  });
});
