import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, pollUntil, testTls, writeTestTlsFiles } from '@feira/platform/testing';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSellerApp, type ProcessedEvent } from '../src/app.js';

// The whole loop, as a seller's developer runs it: `feira start` (a real
// process), this example app on HTTPS, a real browser for the consent pages.
// connect → signup → ticket created → signed webhook → record read;
// storefront quote → seller quote endpoint → checkout → order webhook.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

/** A port free right now (the app's redirect URI must be registered before it listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('examples/seller-app end to end against `feira start`', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'feira-e2e-'));
  const tlsFiles = writeTestTlsFiles(dataDir);
  let sandbox: ChildProcess;
  let platformUrl = '';
  let app: FastifyInstance;
  let appUrl = '';
  let browser: Browser;
  let demo: { sellerLogin: string; sellerPassword: string; tenants: Array<{ id: string }> };

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platformUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const events = async () => (await app.inject({ method: 'GET', url: '/events' })).json() as ProcessedEvent[];

  beforeAll(async () => {
    // The sandbox trusts the test CA through --outbound-ca, as a developer points it at mkcert's root CA.
    sandbox = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'packages/cli/src/bin.ts'),
        'start',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--admin-token',
        ADMIN_TOKEN,
        '--log-level',
        'silent',
        '--outbound-ca',
        tlsFiles.ca,
        // Plain HTTP: this test is about the app, and its process cannot take the sandbox's CA after it
        // started (NODE_EXTRA_CA_CERTS is read at start; the README shows the HTTPS way).
        '--http',
      ],
      {
        cwd: root,
        env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.typecheck.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    sandbox.stdout?.on('data', (chunk) => {
      out += chunk;
    });
    sandbox.stderr?.on('data', (chunk) => {
      err += chunk;
    });
    platformUrl = await pollUntil(
      'feira start to be ready',
      () => {
        if (sandbox.exitCode !== null) throw new Error(`feira start exited: ${err}`);
        return out.includes('Listening on') ? /API\s+(https?:\/\/\S+)/.exec(out)?.[1] : undefined;
      },
      { deadlineMs: 120_000 },
    );
    demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));

    // The seller app on HTTPS (v1 webhooks need it). Its client is registered first, for the app's own address.
    const port = await freePort();
    appUrl = `https://127.0.0.1:${port}`;
    const client = await admin('POST', '/admin/v1/clients', {
      name: 'Example seller app',
      redirect_uris: [`${appUrl}/callback`],
      scopes: ['open:ticket:read', 'open:order-order:read', 'open:webhook:write'],
      default_scopes: [],
    });
    expect(client.status).toBe(201);
    app = await buildSellerApp({
      platformUrl,
      clientId: client.body.client_id,
      clientSecret: client.body.client_secret,
      webhookUrl: `${appUrl}/hooks`,
      tokenFile: join(dataDir, 'seller-app-tokens.json'),
      fastify: { https: { key: testTls.key, cert: testTls.cert } },
    });
    await app.listen({ port, host: '127.0.0.1' });

    browser = await chromium.launch(chromiumLaunchOptions());
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (sandbox && sandbox.exitCode === null) {
      sandbox.kill('SIGTERM');
      await new Promise((resolve) => sandbox.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('spec Service 1–2 / Events rule 1: connect button → consent → callback stores tokens and signs up v1 webhooks; a new ticket arrives signed and is read', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(appUrl);
    await page.click('#connect');
    await page.fill('input[name="login"]', demo.sellerLogin);
    await page.fill('input[name="password"]', demo.sellerPassword);
    await page.click('button[type="submit"]');
    // Store choice (spec-notes I9): grant the first store.
    await page.check(`input[name="tenant"][value="${demo.tenants[0]!.id}"]`);
    await page.click('button[type="submit"]:not(.link)');
    await page.click('button[name="decision"][value="approve"]');
    await page.waitForSelector('#connected');
    expect(await page.textContent('#connected')).toContain('1 store(s) connected');
    await context.close();
    // Tokens are in the app's store (the SDK's pluggable TokenStore, a file here).
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, 'seller-app-tokens.json'), 'utf8')))).toEqual([
      expect.stringMatching(/^seller:/),
    ]);

    const ticket = await admin('POST', `/admin/v1/tenants/${demo.tenants[0]!.id}/tickets`, {
      subject: 'Where is my parcel?',
      customer: { id: 'c-1', name: 'Ana' },
    });
    expect(ticket.status).toBe(201);
    const event = await pollUntil('the ticket webhook', async () =>
      (await events()).find((e) => e.topic === 'sac_ticket' && (e.record as { id?: string } | null)?.id === ticket.body.id),
    );
    expect(event.status).toBe('CREATION');
    expect(event.record).toMatchObject({ id: ticket.body.id, subject: 'Where is my parcel?' });
  }, 180_000);

  it('spec Quote rules 1–3 / spec-notes Q5-Q6: storefront quote calls the app quote endpoint (fastest and cheapest shown); checkout creates the order and its webhook is read', async () => {
    const tenantId = demo.tenants[0]!.id;
    expect(
      (
        await admin('PUT', `/admin/v1/tenants/${tenantId}/shipping`, {
          method: 'seller_api',
          url: `${appUrl}/quote`,
          distribution_centers: [],
        })
      ).status,
    ).toBe(200);
    const sku = `E2E-${Date.now().toString(36).toUpperCase()}`;
    const product = await admin('POST', `/admin/v1/tenants/${tenantId}/products`, {
      sku,
      title: 'Ceramic mug',
      price: 49.9,
      stock: 10,
      dimensions: { depth: 12, height: 10, width: 9, weight: 400 },
    });
    expect(product.status).toBe(201);
    const cart = { tenant_id: tenantId, zipcode: '01310100', items: [{ sku, quantity: 2 }] };
    const quote = await fetch(`${platformUrl}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(cart),
    });
    const quoteBody = JSON.stringify(await quote.json());
    expect(quote.status, quoteBody).toBe(200);
    expect(quoteBody).toContain('standard');
    expect(quoteBody).toContain('express');

    const checkout = await fetch(`${platformUrl}/storefront/v1/checkouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...cart, choice: 'cheapest', customer: { id: 'c-2', name: 'Bruno' } }),
    });
    const checkoutBody = (await checkout.json()) as { order: { id: string } };
    expect(checkout.status, JSON.stringify(checkoutBody)).toBe(201);
    const event = await pollUntil('the order webhook', async () =>
      (await events()).find((e) => e.topic === 'order' && (e.record as { id?: string } | null)?.id === checkoutBody.order.id),
    );
    expect(event.status).toBe('CREATION');
  }, 180_000);
});
