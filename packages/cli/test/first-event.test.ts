import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumLaunchOptions, pollUntil } from '@feira/platform/testing';
import { verifyWebhook } from '@feira/sdk';
import { type Browser, chromium } from 'playwright-core';
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeiraProcess, runFeira, runTsNode } from './feira-process.js';
import { approveInBrowser, PRINTED_LOGIN_URL } from './support/browser-login.js';

// First run to first event: a fresh sandbox, then `feira login` (the browser driven
// by Chromium), `feira listen --forward-to <a plain HTTP app>`, `feira trigger
// order`: a signed order event reaches the app, and Ctrl-C on listen leaves no
// active subscription. Only --data-dir is added to each command, because the
// test's sandbox keeps its data in a temporary folder instead of ./.feira.
// The sandbox serves HTTPS, as it does by default: every feira command trusts
// its data folder's CA by itself; this test's own fetch is given that CA.

describe('first run to first event', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-first-event-'));
  const dataDir = join(dir, '.feira');
  const running: FeiraProcess[] = [];
  // A plain Node script from the repository's root, as a newcomer runs the example.
  const runNode = (args: string[]) => runTsNode(args);
  const feira = (...args: string[]) => {
    const p = runFeira([...args, '--data-dir', dataDir], { FEIRA_HTTP: undefined });
    running.push(p);
    return p;
  };
  let app: Server;
  let appUrl: string;
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  let browser: Browser;
  let sandboxUrl: string;
  let previousDispatcher: Dispatcher | undefined;
  let adminToken: string;

  beforeAll(async () => {
    // The developer's app: plain HTTP, no TLS, no Feira code.
    app = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
    browser = await chromium.launch(chromiumLaunchOptions());
    const sandbox = feira('start', '--port', '0');
    sandboxUrl = `https://127.0.0.1:${(await sandbox.waitFor(/Listening on https:\/\/127\.0\.0\.1:(\d+)/, 120_000))[1]}`;
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: readFileSync(join(dataDir, 'local-ca.pem'), 'utf8') } }));
    adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  }, 180_000);

  afterAll(async () => {
    if (previousDispatcher) setGlobalDispatcher(previousDispatcher);
    for (const p of running) await p.stop('SIGKILL');
    await browser?.close();
    app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('login (PKCE, loopback redirect), listen with no certificate work, trigger order: the app gets a signed event; Ctrl-C leaves no active subscription', async () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));

    // feira login: no display here, so it prints the URL; a seller opens it in Chromium.
    const login = feira('login');
    const loginUrl = new URL((await login.waitFor(PRINTED_LOGIN_URL))[1] as string);
    expect(loginUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(loginUrl.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/feira-cli\/callback$/);
    expect(loginUrl.searchParams.get('scope')?.split(' ')).toContain('open:webhook:write');
    await approveInBrowser(browser, loginUrl.toString(), demo);
    expect(await login.exited).toBe(0);
    expect(login.stdout()).toContain('Feira Demo Store');
    expect(statSync(join(dataDir, 'login.json')).mode & 0o777).toBe(0o600);

    // feira token: a valid access token for scripts.
    const token = feira('token');
    expect(await token.exited).toBe(0);
    const accessToken = token.stdout().trim();
    const products = await fetch(`${sandboxUrl}/seller/v1/products?_limit=1`, {
      headers: { authorization: `Bearer ${accessToken}`, 'x-tenant-id': demo.tenants[0].id },
    });
    expect(products.status).toBe(200);

    // feira listen: HTTPS receiver with a certificate from the sandbox's local CA, no flag for it.
    const listen = feira('listen', '--forward-to', appUrl);
    await listen.waitFor(/Ready\. Receiving v1 deliveries at https:\/\/127\.0\.0\.1:\d+\//);
    await listen.waitFor(/Ctrl-C to stop and remove the subscriptions/);
    const secrets = [...listen.stdout().matchAll(/order\s+signing secret (whsec_\S+)/g)].map((m) => m[1] as string);
    expect(secrets).toHaveLength(2); // one per store the seller picked

    const trigger = feira('trigger', 'order');
    expect(await trigger.exited).toBe(0);
    expect(trigger.stdout()).toMatch(/CREATION of order \S+ in tenant \S+: on its way to 1 subscription/);

    const delivery = await pollUntil('the order event at the app', () => received.find((r) => r.path === '/hooks'), {
      deadlineMs: 60_000,
    });
    const message = verifyWebhook({ rawBody: delivery.body, headers: delivery.headers, secrets });
    expect(message.topic).toBe('order');
    expect(message.data.status).toBe('CREATION');
    await listen.waitFor(/order\s+CREATION .*→ 204/);

    // Ctrl-C: the subscriptions are removed.
    expect(await listen.stop('SIGINT')).toBe(0);
    expect(listen.stdout()).toContain('Stopped; 8 subscription(s) removed.');
    const active = await fetch(`${sandboxUrl}/admin/webhooks/subscriptions?state=active`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(((await active.json()) as { results: unknown[] }).results).toEqual([]);
    const after = feira('trigger', 'order');
    expect(await after.exited).toBe(0);
    expect(after.stdout()).toContain('no active subscription to order in this store');
  });

  it('feira events list / resend and feira logs tail: deliveries and quote calls, one line each (--json)', async () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const listed = feira('events', 'list', '--json', '--topic', 'order');
    expect(await listed.exited).toBe(0);
    const deliveries = listed
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(deliveries).toEqual([expect.objectContaining({ topic: 'order', status: 'succeeded', last_status_code: 204 })]);

    const tail = feira('logs', 'tail', '--json', '--interval', '200');
    await tail.waitFor(/"type":"ready"/);
    const quote = await fetch(`${sandboxUrl}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: demo.tenants[0].id, zipcode: '20040002', items: [{ sku: 'CAM-AZUL-M', quantity: 1 }] }),
    });
    expect(((await quote.json()) as { available: boolean }).available).toBe(true);
    const quoteLine = JSON.parse((await tail.waitFor(/^\{"type":"quote_call".*$/m))[0]);
    expect(quoteLine).toMatchObject({ purpose: 'storefront', outcome: 'ok', http_status: 200, tenant_id: demo.tenants[0].id });

    // Resent by event id: the delivery is queued again; its subscription was removed at Ctrl-C, so it ends dead.
    const resend = feira('events', 'resend', deliveries[0].event_id);
    expect(await resend.exited).toBe(0);
    expect(resend.stdout()).toContain(`Resending delivery ${deliveries[0].id}`);
    const deliveryLine = JSON.parse((await tail.waitFor(/^\{"type":"delivery".*$/m))[0]);
    expect(deliveryLine).toMatchObject({ id: deliveries[0].id, topic: 'order' });
    await tail.stop('SIGINT');

    // The list counts every attempt of the delivery, resends included, as its log (and the console) does.
    const logged = await fetch(`${sandboxUrl}/admin/webhooks/deliveries/${deliveries[0].id}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const attemptLog = ((await logged.json()) as { attempt_log: unknown[] }).attempt_log;
    const human = feira('events', 'list', '--topic', 'order');
    expect(await human.exited).toBe(0);
    expect(human.stdout()).toContain(`delivery ${deliveries[0].id}`);
    expect(human.stdout()).toMatch(new RegExp(`delivery ${deliveries[0].id} .* attempts ${attemptLog.length} `));
  });

  it('a feira listen that was killed leaves subscriptions; the next listen disables those still pointing at its dead receiver', async () => {
    const killed = feira('listen', '--forward-to', appUrl, '--topics', 'order');
    await killed.waitFor(/Ctrl-C to stop and remove the subscriptions/);
    await killed.stop('SIGKILL');
    const activeOrders = async () => {
      const res = await fetch(`${sandboxUrl}/admin/webhooks/subscriptions?state=active&topic=order`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      return ((await res.json()) as { results: unknown[] }).results.length;
    };
    expect(await activeOrders()).toBe(2);
    const next = feira('listen', '--forward-to', appUrl, '--topics', 'sac_ticket');
    await next.waitFor(/Ctrl-C to stop and remove the subscriptions/);
    expect(next.stdout()).toContain('Removed 2 subscription(s) left by an earlier feira listen');
    expect(await activeOrders()).toBe(0);
    // Seen once under the full suite: exit code null, a SIGTERM that came before listen had its handler
    // (now installed before the ready line, src/stop-signals.ts). Should it recur, the message says which signal.
    expect(await next.stop('SIGTERM'), `ended by ${next.exitSignal()}; stderr: ${next.stderr()}`).toBe(0);
  });

  it('the shipped receiver (examples/webhook-receiver) verifies a triggered event with the secrets feira listen keeps, labelled by store and topic; listen says when a signup re-points its subscription (D71)', async () => {
    const receiver = runNode([
      'examples/webhook-receiver/receiver.mjs',
      '--port',
      '0',
      '--secrets',
      join(dataDir, 'webhook-secrets.json'),
    ]);
    running.push(receiver);
    const receiverUrl = (await receiver.waitFor(/Webhook receiver on (http:\/\/127\.0\.0\.1:\d+\/hooks)/))[1] as string;
    // Without a scheme, as people type it: taken as http://.
    const listen = feira('listen', '--forward-to', receiverUrl.replace('http://', ''), '--print-secrets-json');
    await listen.waitFor(/Ctrl-C to stop and remove the subscriptions/);
    expect(listen.stdout()).toMatch(/Feira Demo Store\s+order\s+signing secret whsec_/);
    expect(listen.stdout()).toMatch(/Feira Demo Outlet\s+sac_ticket\s+signing secret whsec_/);
    const printed = JSON.parse((await listen.waitFor(/^\{"receiver_url".*$/m))[0]) as {
      forward_to: string;
      secrets: Array<{ store: string; topic: string; secret: string }>;
    };
    expect(printed.forward_to).toBe(receiverUrl);
    expect(printed.secrets).toContainEqual(expect.objectContaining({ store: 'Feira Demo Store', topic: 'order' }));
    expect(JSON.parse(readFileSync(join(dataDir, 'webhook-secrets.json'), 'utf8'))).toEqual(printed);

    const trigger = feira('trigger', 'order');
    expect(await trigger.exited).toBe(0);
    await receiver.waitFor(/^verified order CREATION \/v1\/orders\/\S+ \[\S+\]$/m);
    await listen.waitFor(/order\s+CREATION .*→ 204/);
    expect(receiver.stdout()).not.toContain('rejected');

    // Another signup of the same client for the same store and topic moves the subscription: listen says so.
    const token = feira('token');
    expect(await token.exited).toBe(0);
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const moved = await fetch(`${sandboxUrl}/v1/onboarding/signup`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token.stdout().trim()}`,
        'x-tenant-id': demo.tenants[0].id,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ webhook: 'https://127.0.0.1:9/elsewhere', topics: ['order'] }),
    });
    expect(moved.status).toBe(200);
    await listen.waitFor(
      /Subscription \S+ \(Feira Demo Store, order\) now points at https:\/\/127\.0\.0\.1:9\/elsewhere: another signup of this client re-pointed it/,
    );
    expect(await listen.stop('SIGINT')).toBe(0);
  });
});
