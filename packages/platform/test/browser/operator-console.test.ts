import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, TEST_ADMIN_TOKEN } from '../../src/testing.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { axeViolations, seriousAxeViolations } from './axe.js';
import { platformInChromium, signInOperator, signInToConsole, storeWithSubscribedApp } from './browser-kit.js';

/**
 * The operator console in Chromium: the admin token becomes an
 * operator session; an operator creates, edits and deletes a seller (whose
 * tokens then fail), deletes a client app and reads the health charts; a
 * seller's session never opens it.
 */
describe.each(testDatabaseTargets())('operator console in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  const operator = (locale: string) => signInOperator(browser, platform.url, locale);

  it("an operator creates, edits and deletes a seller in English; the deleted seller's token is refused; axe finds nothing serious", async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const first = await context.newPage();
    await first.goto(`${platform.url}/console/operator`);
    await first.getByRole('heading', { name: 'Operator sign-in' }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(first)).toEqual([]);
    await first.getByLabel('Admin token').fill('not-the-token');
    await first.getByRole('button', { name: 'Sign in' }).click();
    await first.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(first.getByRole('alert').textContent()).resolves.toBe('That is not the admin token.');
    await context.close();

    const page = await operator('en-US');
    await page.getByRole('heading', { name: 'Sellers and apps' }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    const login = `ana-${Date.now()}@example.com`;
    await page.getByLabel('Name', { exact: true }).fill('Ana Artesanato');
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByLabel('First store name').fill('Ateliê da Ana');
    await page.getByRole('button', { name: 'Create seller' }).click();
    await page.getByRole('heading', { name: 'Seller Ana Artesanato' }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Seller created');
    expect(await seriousAxeViolations(page)).toEqual([]);
    const created = await platform.database.db
      .selectFrom('sellers')
      .select('id')
      .where('login', '=', login)
      .executeTakeFirstOrThrow();
    const tenant = await platform.database.db
      .selectFrom('tenants')
      .select(['id', 'name'])
      .where('seller_id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(tenant.name).toBe('Ateliê da Ana');

    // Edit: a new name and a new password (the old one stops working).
    await page.getByLabel('Name', { exact: true }).fill('Ana Artesanato Ltda');
    await page.getByLabel('New password (optional)').fill('another long secret');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Seller Ana Artesanato Ltda' }).waitFor({ timeout: 10_000 });
    // The seller signs in with the new password only.
    const sellerContext = await browser.newContext({ locale: 'en-US' });
    const sellerPage = await sellerContext.newPage();
    for (const [password, expected] of [
      ['correct horse battery', 'Login or password is incorrect.'],
      ['another long secret', null],
    ] as const) {
      await sellerPage.goto(`${platform.url}/console`);
      await sellerPage.getByLabel('Login').fill(login);
      await sellerPage.getByLabel('Password').fill(password);
      await sellerPage.getByRole('button', { name: 'Sign in' }).click();
      if (expected) await expect(sellerPage.getByRole('alert').textContent()).resolves.toBe(expected);
      else await sellerPage.getByRole('heading', { name: 'Your stores' }).waitFor({ timeout: 10_000 });
    }
    await sellerContext.close();
    await page.getByLabel(/Name of store/).fill('Ateliê Centro');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByLabel(/Name of store/).inputValue()).resolves.toBe('Ateliê Centro');

    // Delete: the seller's app token works before and is refused after.
    const app = await platform.createClient({ name: 'Integra Ana' });
    const token = await platform.mintAccessToken({
      tenants: [tenant.id],
      scopes: ['open:order-order:read'],
      clientId: app.clientId,
    });
    const orders = () =>
      fetch(`${platform.url}/v1/orders`, { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenant.id } });
    expect((await orders()).status).toBe(200);
    await page.getByLabel(/Type the login/).fill('someone-else');
    await page.getByRole('button', { name: 'Delete Ana Artesanato Ltda' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('nothing was deleted');
    await page.getByLabel(/Type the login/).fill(login);
    await page.getByRole('button', { name: 'Delete Ana Artesanato Ltda' }).click();
    await page.getByRole('heading', { name: 'Sellers and apps' }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Ana Artesanato Ltda was deleted');
    expect((await orders()).status).toBe(401);
    await expect(page.getByRole('link', { name: 'Ana Artesanato Ltda' }).count()).resolves.toBe(0);
    await page.context().close();
  }, 120_000);

  it('in pt-BR an operator deletes a client app (its token is refused) and reads the health charts', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const app = await platform.createClient({ name: 'Apagável' });
    const tenantId = seller.tenantIds[0] as string;
    const token = await platform.mintAccessToken({
      tenants: [tenantId],
      scopes: ['open:order-order:read'],
      clientId: app.clientId,
    });
    const page = await operator('pt-BR');
    await page.getByRole('heading', { name: 'Vendedores e aplicativos' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Excluir Apagável' }).click();
    // D69: the deletion asks first, in a dialog.
    await page
      .getByRole('dialog', { name: 'Excluir o aplicativo Apagável?' })
      .getByRole('button', { name: 'Excluir aplicativo' })
      .click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Apagável foi excluído');
    const refused = await fetch(`${platform.url}/v1/orders`, {
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId },
    });
    expect(refused.status).toBe(401);

    await page.getByRole('navigation', { name: 'Seções da operação' }).getByRole('link', { name: 'Saúde da plataforma' }).click();
    await page.getByRole('heading', { name: 'Saúde da plataforma' }).waitFor({ timeout: 10_000 });
    await page.locator('#health-chart canvas').first().waitFor({ timeout: 10_000 });
    await expect(page.locator('#health-chart .uplot').count()).resolves.toBe(4);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Signing out ends the operator session: the page asks for the token again.
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByRole('heading', { name: 'Entrada da operação' }).waitFor({ timeout: 10_000 });
    await page.context().close();
  }, 120_000);

  it('spec-notes I20: the operator sets an app’s API rate limit on its page, in English and Portuguese, axe-clean, and a form without the CSRF token changes nothing', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const name = `Limitado ${Date.now()}`;
    const app = { ...(await platform.createClient({ name })), name };
    const token = await platform.mintAccessToken({
      tenants: [tenantId],
      scopes: ['open:order-order:read'],
      clientId: app.clientId,
    });
    const orders = () => fetch(`${platform.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
    const view = async () =>
      (
        await platform.app.inject({
          url: `/admin/v1/clients/${app.clientId}`,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        })
      ).json().rate_limit;

    const page = await operator('en-US');
    await page.goto(`${platform.url}/console/operator?q=${encodeURIComponent(app.clientId)}`);
    const row = page.getByRole('row', { name: new RegExp(app.clientId) });
    await expect(row.textContent()).resolves.toContain('(default)');
    await row.getByRole('link', { name: `Change the limit of ${app.name}` }).click();
    await page.getByRole('heading', { name: `API rate limit of ${app.name}` }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Requests per second').fill('0');
    await page.getByLabel('Burst (requests at once)').fill('4');
    // The browser's own check would stop 0; the server's is what counts.
    await page.locator('form[aria-labelledby="set-limit"]').evaluate((form) => form.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: 'Save the limit' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('from 1 to 100,000');
    expect(await view()).toEqual({ requests_per_second: 100_000, burst: 1_000_000, source: 'default' });
    await page.getByLabel('Requests per second').fill('1');
    await page.getByLabel('Burst (requests at once)').fill('4');
    await page.getByRole('button', { name: 'Save the limit' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toBe('Limit saved.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await view()).toEqual({ requests_per_second: 1, burst: 4, source: 'app' });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await orders()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);

    // A form posted without its CSRF token (another site's form) changes nothing.
    const forged = await page.request.post(`${platform.url}/console/operator/clients/${app.clientId}/rate-limit`, {
      form: { reset: '1' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(303);
    expect(await view()).toEqual({ requests_per_second: 1, burst: 4, source: 'app' });
    await page.context().close();

    const pt = await operator('pt-BR');
    await pt.goto(`${platform.url}/console/operator/clients/${app.clientId}/rate-limit`);
    await pt.getByRole('heading', { name: `Limite de requisições da API de ${app.name}` }).waitFor({ timeout: 10_000 });
    await expect(pt.locator('main').textContent()).resolves.toContain('1 por segundo, picos de 4');
    expect(await seriousAxeViolations(pt)).toEqual([]);
    await pt.getByRole('button', { name: /Usar o padrão da plataforma/ }).click();
    await pt.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(pt.getByRole('status').textContent()).resolves.toBe('Limite salvo.');
    expect(await view()).toEqual({ requests_per_second: 100_000, burst: 1_000_000, source: 'default' });
    await expect(pt.locator('main').textContent()).resolves.toContain('100.000 por segundo, picos de 1.000.000 (padrão)');
    await pt.context().close();
  }, 120_000);

  it('in sandbox mode an operator moves the platform clock from the health page; a step that is not one is refused and moves nothing', async () => {
    const page = await operator('en-US');
    await page.goto(`${platform.url}/console/operator/health`);
    await page.getByRole('heading', { name: 'Sandbox clock' }).waitFor({ timeout: 10_000 });
    const before = platform.app.platform.clock.now().getTime() - platform.clock.now().getTime();
    await page.getByLabel('Move forward by').fill('soon');
    await page.getByRole('button', { name: 'Move the clock' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('such as 2h or 1d12h');
    expect(platform.app.platform.clock.now().getTime() - platform.clock.now().getTime()).toBe(before);
    await page.getByLabel('Move forward by').fill('2h');
    await page.getByRole('button', { name: 'Move the clock' }).click();
    await page.getByRole('status').filter({ hasText: 'The clock was moved forward.' }).waitFor({ timeout: 10_000 });
    expect(platform.app.platform.clock.now().getTime() - platform.clock.now().getTime()).toBe(before + 2 * 3_600_000);
    await expect(page.locator('body').textContent()).resolves.toContain(
      `${(before + 2 * 3_600_000) / 3_600_000} hours ahead of the host`,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('a seller signed in to the console cannot reach the operator console or its actions', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const page = await signInToConsole(browser, platform.url, seller, 'en-US');
    const context = page.context();
    const response = await page.goto(`${platform.url}/console/operator`);
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Operator sign-in' }).waitFor({ timeout: 10_000 });
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const attempt = await context.request.post(`${platform.url}/console/operator/sellers/${seller.sellerId}/delete`, {
      form: { csrf, confirm: seller.login },
      maxRedirects: 0,
    });
    expect(attempt.status()).toBe(401);
    const still = await platform.database.db
      .selectFrom('sellers')
      .select('id')
      .where('id', '=', seller.sellerId)
      .executeTakeFirst();
    expect(still).toBeDefined();
    await context.close();
  }, 120_000);

  it("D157: the operator finds a store by name or id and a delivery by id, reads the store's subscriptions and deliveries and a delivery's attempts, never a secret, a body or a signature; pt-BR at 375 px dark and English at 1280 px light, axe clean; a seller's session opens none of it", async () => {
    // A receiver that is not there, its URL holding a token: the delivery fails and keeps retrying.
    const { seller, tenantId, subscriptions } = await storeWithSubscribedApp(platform, 'https://127.0.0.1:9/hooks?token=s3cr3t');
    const secret = subscriptions[0]?.parameters.secret as string;
    const storeName = `Loja Suporte ${Date.now()}`;
    await platform.database.db.updateTable('tenants').set({ name: storeName }).where('id', '=', tenantId).execute();
    const recordId = platform.app.platform.random.uuid();
    await recordChange(platform, { tenantId, recordId });
    await dispatcherOf(platform).runOnce();
    const delivery = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'attempts'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(delivery.attempts)).toBe(1);
    const neverShown = (html: string) => {
      for (const hidden of ['s3cr3t', secret, recordId, 'sha256=', 'whsec_']) expect(html).not.toContain(hidden);
    };

    const page = await signInOperator(browser, platform.url, {
      locale: 'pt-BR',
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
      timeout: 15_000,
    });
    await page
      .getByRole('searchbox', { name: 'Buscar vendedores, lojas, aplicativos e entregas' })
      .fill(storeName.slice(5).toUpperCase());
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.waitForURL(/[?&]q=/);
    await expect(page.locator('#stores + p').textContent()).resolves.toBe('Uma loja corresponde.');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: `Webhooks de ${storeName}` }).click();
    await page.getByRole('heading', { name: `Webhooks de ${storeName}` }).waitFor();
    const subscription = page.getByRole('table', { name: 'Assinaturas' }).locator('tbody tr');
    await expect(subscription.textContent()).resolves.toMatch(
      /Acme Integrações.*Atendimentos.*\/hooks\?token=•••.*ativa.*1.*falhando desde/,
    );
    const deliveries = page.getByRole('table', { name: 'Entregas recentes' }).locator('tbody tr');
    await expect(deliveries.locator('.pill').textContent()).resolves.toBe('falhando, tentando de novo');
    neverShown(await page.content());
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
    await page.getByRole('link', { name: 'Com falha (tentando de novo ou desistidas)' }).click();
    await page.waitForURL(/status=failed/);
    await expect(deliveries.count()).resolves.toBe(1);
    await page.getByRole('link', { name: `Abrir entrega ${delivery.id}` }).click();
    await page.getByRole('heading', { name: `Entrega ${delivery.id}` }).waitFor();
    const attempt = page.getByRole('table', { name: 'Tentativas' }).locator('tbody tr');
    await expect(attempt.textContent()).resolves.toMatch(/^1.*falha.*ECONNREFUSED/);
    neverShown(await page.content());
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();

    const desk = await signInOperator(browser, platform.url, {
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      timeout: 15_000,
    });
    // A delivery's id, pasted in capitals, leads to its store and its page.
    await desk.goto(`${platform.url}/console/operator?q=${delivery.id.toUpperCase()}`);
    await expect(desk.locator('#found-delivery + p').textContent()).resolves.toBe(
      `Delivery ${delivery.id} belongs to the store ${storeName} (${(await platform.database.db.selectFrom('sellers').select('name').where('id', '=', seller.sellerId).executeTakeFirstOrThrow()).name}). Open the delivery`,
    );
    expect(await axeViolations(desk)).toEqual([]);
    await desk.getByRole('link', { name: 'Open the delivery' }).click();
    await desk.getByRole('heading', { name: `Delivery ${delivery.id}` }).waitFor();
    expect(await axeViolations(desk)).toEqual([]);
    // A store's id finds it too.
    await desk.goto(`${platform.url}/console/operator?q=${tenantId}`);
    await expect(desk.locator('#stores + p').textContent()).resolves.toBe('One store matches.');
    await desk.getByRole('link', { name: `Webhooks of ${storeName}` }).click();
    await desk.getByRole('heading', { name: `Webhooks of ${storeName}` }).waitFor();
    neverShown(await desk.content());
    await desk.context().close();

    // The pages stay the operator's: a seller's session gets the operator sign-in, an unknown store a 404.
    const sellerPage = await signInToConsole(browser, platform.url, seller, 'en-US');
    for (const path of [`/stores/${tenantId}/webhooks`, `/stores/${tenantId}/webhooks/deliveries/${delivery.id}`]) {
      const answer = await sellerPage.goto(`${platform.url}/console/operator${path}`);
      expect(answer?.status()).toBe(401);
      await sellerPage.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
      neverShown(await sellerPage.content());
    }
    await sellerPage.context().close();
  }, 120_000);
});
