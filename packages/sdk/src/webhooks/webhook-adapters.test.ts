import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../test-support/listen.js';
import { createWebhookHandler, expressWebhookHandler, fastifyWebhookPlugin } from './webhook-adapters.js';
import type { WebhookMessage } from './webhook-message.js';
import type { WebhookReceiverOptions } from './webhook-receiver.js';

const SECRET = 'whsec_adapter_test_secret_0123456789abcdefghijk';
const NOW = new Date('2026-01-15T12:00:00.000Z');
const TS = String(NOW.getTime() / 1000);
// Deliberately unusual spacing: a receiver that re-serializes the JSON would fail to verify it.
const BODY =
  '{ "data": {"status":"UPDATE","params":{"id":"o-1"},"resource":"/v1/orders/o-1"},  "tenant_id":"8c8a7c1e-2b7f-4a4e-9a55-0d3f0f6e2a11","topic":"order" }';
const signature = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(`${TS}.${body}`).digest('hex')}`;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

type Start = (options: WebhookReceiverOptions) => Promise<string>;

const servers: Record<string, Start> = {
  'node:http': async (options) => {
    const { url, close } = await listenOnLoopback(createServer(createWebhookHandler(options)));
    closers.push(close);
    return `${url}/hooks`;
  },
  'Express (no body parser)': async (options) => {
    const app = express();
    app.post('/hooks', expressWebhookHandler(options));
    const { url, close } = await listenOnLoopback(createServer(app));
    closers.push(close);
    return `${url}/hooks`;
  },
  'Express (after express.raw)': async (options) => {
    const app = express();
    app.post('/hooks', express.raw({ type: 'application/json' }), expressWebhookHandler(options));
    const { url, close } = await listenOnLoopback(createServer(app));
    closers.push(close);
    return `${url}/hooks`;
  },
  Fastify: async (options) => {
    const app = Fastify();
    await app.register(fastifyWebhookPlugin, { ...options, path: '/hooks' });
    // The rest of the app keeps normal JSON parsing.
    app.post('/json', async (request) => ({ echoed: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const address = app.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}/hooks`;
  },
};

describe.each(Object.entries(servers))('webhook adapter: %s', (_name, start) => {
  it('spec Events/Signature: keeps the raw body, verifies it, hands the typed message and X-Webhook-Id (W3) to onMessage, answers 200', async () => {
    const received: Array<{ message: WebhookMessage; webhookId: string | undefined }> = [];
    const url = await start({
      secrets: SECRET,
      now: () => NOW,
      onMessage: (message, delivery) => received.push({ message, ...delivery }),
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature-256': signature(BODY),
        'x-timestamp': TS,
        'x-webhook-id': 'wh-1',
      },
      body: BODY,
    });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]?.message.topic).toBe('order');
    expect(received[0]?.message.data.resource).toBe('/v1/orders/o-1');
    expect(received[0]?.webhookId).toBe('wh-1');
  });

  it('secrets may be a function read at every delivery (secrets kept in a database)', async () => {
    let secrets: string[] = ['whsec_not_yet'];
    const received: string[] = [];
    const url = await start({ secrets: async () => secrets, now: () => NOW, onMessage: (m) => received.push(m.topic) });
    const send = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-256': signature(BODY), 'x-timestamp': TS },
        body: BODY,
      });
    expect((await send()).status).toBe(401);
    secrets = [SECRET];
    expect((await send()).status).toBe(200);
    expect(received).toEqual(['order']);
  });

  it('a wrong signature is answered 401 with the error code, and onMessage is not called', async () => {
    let calls = 0;
    const url = await start({ secrets: SECRET, now: () => NOW, onMessage: () => calls++ });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signature(BODY, 'whsec_other'), 'x-timestamp': TS },
      body: BODY,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'ERR_SIGNATURE_MISMATCH' });
    expect(calls).toBe(0);
  });

  it('a failing onMessage is answered 500 without internals, so the platform retries (spec-notes W4)', async () => {
    const url = await start({
      secrets: SECRET,
      now: () => NOW,
      onMessage: () => {
        throw new Error('database password is hunter2');
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signature(BODY), 'x-timestamp': TS },
      body: BODY,
    });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('hunter2');
  });

  it('a body over maxBodyBytes is refused with 413', async () => {
    const url = await start({ secrets: SECRET, now: () => NOW, maxBodyBytes: 64, onMessage: () => {} });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signature(BODY), 'x-timestamp': TS },
      body: BODY,
    });
    expect(response.status).toBe(413);
  });
});

describe('Fastify webhook plugin', () => {
  it('does not change JSON parsing outside its own scope', async () => {
    const url = await servers.Fastify!({ secrets: SECRET, onMessage: () => {} });
    const response = await fetch(url.replace('/hooks', '/json'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await response.json()).toEqual({ echoed: { a: 1 } });
  });
});

describe('Express webhook handler', () => {
  it('reports a clear error when express.json() already consumed the raw body', async () => {
    const app = express();
    let seen: unknown;
    app.post('/hooks', express.json(), expressWebhookHandler({ secrets: SECRET, onMessage: () => {} }));
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      seen = error;
      res.status(500).end();
    });
    const { url, close } = await listenOnLoopback(createServer(app));
    closers.push(close);
    const response = await fetch(`${url}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signature(BODY), 'x-timestamp': TS },
      body: BODY,
    });
    expect(response.status).toBe(500);
    expect(String(seen)).toContain('express.raw');
  });
});
