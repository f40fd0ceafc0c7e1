import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordConsent } from '../../src/identity/consent-store.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import type { LoopbackReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, signup } from '../webhooks/webhook-kit.js';
import { seriousAxeViolations } from './axe.js';
import { signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

/**
 * The seller console in a real Chromium: sign in (pt-BR) with the
 * identity provider's login, open a failed delivery and its attempts, resend
 * it and watch the new attempt arrive live; another seller's store is a 404.
 */
describe.each(testDatabaseTargets())('seller console in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;
  let failing = true;

  webhooksInChromium(
    target,
    (opened) => {
      ({ platform, browser, hooks } = opened);
    },
    () => (failing ? { status: 500, body: 'receiver exploded: <b>db down</b>' } : { status: 200, body: 'ok' }),
  );

  async function sellerWithFailedDelivery() {
    const { seller, tenantId, app, token } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`, ['sac_ticket'], {
      consented: null,
    });
    failing = true;
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    const delivery = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return { seller, tenantId, app, token, deliveryId: delivery.id };
  }

  it('a seller signs in in pt-BR, opens a failed delivery, resends it and sees the new attempt arrive live; axe finds nothing serious', async () => {
    const { seller, tenantId, deliveryId } = await sellerWithFailedDelivery();
    const context = await browser.newContext({ locale: 'pt-BR' });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console`);
    await page.getByRole('heading', { name: 'Entrar no console' }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Senha').fill(seller.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Suas lojas' }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Store 1' }).click();
    await page.getByRole('heading', { name: 'Visão geral de Store 1' }).waitFor({ timeout: 10_000 });
    await page.getByRole('navigation', { name: 'Seções da loja' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks de Store 1' }).waitFor({ timeout: 10_000 });
    // The subscription: app, topic, version, URL, state and failure streak.
    const subscription = page.getByRole('table', { name: 'Assinaturas' }).getByRole('row').nth(1);
    await expect(subscription.textContent()).resolves.toMatch(/Acme Integrações.*sac_ticket.*v1.*\/hooks.*ativa.*1/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // A new delivery appears in the list live, without a reload.
    await page.locator('#delivery-list[data-connected]').waitFor({ state: 'attached', timeout: 10_000 });
    await page.evaluate('window.listMarker = 1');
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    await expect.poll(() => page.locator('#delivery-list tbody tr').count(), { timeout: 10_000 }).toBe(2);
    expect(await page.evaluate('window.listMarker')).toBe(1);
    await page.getByRole('link', { name: `Abrir entrega ${deliveryId}` }).click();
    await expect(page.getByRole('heading', { name: `Entrega ${deliveryId}` }).count()).resolves.toBe(1);
    const attempts = page.locator('#attempts');
    await expect(attempts.getByRole('row').count()).resolves.toBe(2);
    await expect(attempts.textContent()).resolves.toContain('falha');
    // The receiver's answer is shown as text, never as markup.
    await expect(attempts.locator('pre[aria-labelledby="body-0"]').textContent()).resolves.toBe(
      'receiver exploded: <b>db down</b>',
    );
    // The attempt's request: the headers it was sent with, signature included, and the exact body.
    const sentHeaders = await attempts.locator('pre[aria-labelledby="req-0"]').textContent();
    expect(sentHeaders).toContain(`x-webhook-id: ${deliveryId}`);
    expect(sentHeaders).toMatch(/x-signature-256: sha256=[0-9a-f]{64}/);
    expect(sentHeaders).toMatch(/x-timestamp: [0-9]{10}/);
    const event = await platform.database.db
      .selectFrom('outbox_events')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.event_id', 'outbox_events.id')
      .select('outbox_events.body')
      .where('webhook_deliveries.id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    const shownBody = await page.locator('pre[aria-labelledby="request-body"]').textContent();
    expect(JSON.parse(shownBody ?? '')).toEqual(JSON.parse(event.body));
    expect(await seriousAxeViolations(page)).toEqual([]);

    failing = false;
    await page.getByRole('button', { name: 'Reenviar agora' }).click();
    await page.getByRole('status').getByText('Reenviada', { exact: false }).waitFor({ timeout: 10_000 });
    // From here the page is not reloaded: a marker set now survives only if the attempt arrives live.
    await page.evaluate('window.marker = 1');
    await page.locator('#attempts[data-connected]').waitFor({ state: 'attached', timeout: 10_000 });
    await dispatcherOf(platform).runOnce();
    await attempts.getByText('sucesso').waitFor({ timeout: 10_000 });
    await expect(attempts.getByRole('row').count()).resolves.toBe(3);
    expect(await page.evaluate('window.marker')).toBe(1);

    // The seller's own JSON endpoint answers with the same session.
    const listed = await context.request.get(`${platform.url}/seller/v1/webhooks/deliveries?status=succeeded`);
    expect(listed.status()).toBe(200);
    const body = (await listed.json()) as { results: Array<{ id: string; tenant_id: string }> };
    expect(body.results.map((d) => d.id)).toEqual([deliveryId]);
    expect(body.results[0]?.tenant_id).toBe(tenantId);
    await context.close();
  }, 120_000);

  it('spec-notes W4: "resend all failed since" sends every dead delivery of the store again, and the dispatcher delivers them', async () => {
    const { seller, tenantId, deliveryId } = await sellerWithFailedDelivery();
    const page = await signInToConsole(browser, platform.url, seller, 'en-US');
    const context = page.context();
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    // Disabled, the subscription's pending delivery ends dead at its next attempt (W4).
    await page.getByRole('button', { name: 'Disable' }).click();
    // Disabling asks first, in a dialog.
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Re-enable' }).waitFor({ timeout: 10_000 });
    platform.clock.advance(3_600_000);
    await dispatcherOf(platform).runOnce();
    const dead = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(dead.state).toBe('dead');
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor({ timeout: 10_000 });
    failing = false;
    await page.getByRole('button', { name: 'Resend all failed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Resend all failed' }).click();
    await page.getByText('due again').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toBe('1 failed delivery is due again.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dispatcherOf(platform).runOnce();
    const delivered = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(delivered.state).toBe('succeeded');
    // The same through the seller API: nothing failed is left, and a future "since" is a 422.
    // A session's state change carries the page's CSRF token in X-CSRF-Token.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const again = await context.request.post(`${platform.url}/seller/v1/webhooks/deliveries/redeliver-failed`, {
      headers: { 'x-csrf-token': csrf },
      data: { since: new Date(platform.clock.now().getTime() - 86_400_000).toISOString() },
    });
    expect(again.status()).toBe(202);
    expect(await again.json()).toEqual({ redelivered: 0 });
    const future = await context.request.post(`${platform.url}/seller/v1/webhooks/deliveries/redeliver-failed`, {
      headers: { 'x-csrf-token': csrf },
      data: { since: new Date(platform.clock.now().getTime() + 86_400_000).toISOString() },
    });
    expect(future.status()).toBe(422);
    expect(((await future.json()) as { details: Array<{ field: string }> }).details[0]?.field).toBe('since');
    await context.close();
  }, 120_000);

  it('spec "States and transitions": rotating a v1 secret shows the new one with the grace hour counting down; disable and re-enable', async () => {
    const { seller, tenantId } = await sellerWithFailedDelivery();
    const page = await signInToConsole(browser, platform.url, seller, 'pt-BR');
    const context = page.context();
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await page
      .getByRole('link', { name: /^Gerenciar a assinatura de / })
      .first()
      .click();
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Trocar segredo' }).click();
    // D98: the rotation lands on a confirmation; the new secret is shown by its POST.
    await page.getByRole('button', { name: 'Mostrar o novo segredo' }).click();
    await page.getByRole('heading', { name: 'Novo segredo' }).waitFor({ timeout: 10_000 });
    const secret = await page.getByLabel('Novo segredo de assinatura').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await page.locator('[data-countdown]').first().textContent()).toMatch(/^(60:00|59:5\d)$/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    const row = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .select(['secret_sealed', 'previous_secret_sealed', 'previous_secret_grace_until'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(platform.app.platform.box.open(row.secret_sealed as string)).toBe(secret);
    expect(row.previous_secret_grace_until).toBe(new Date(platform.clock.now().getTime() + 3_600_000).toISOString());
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const subscription = page.getByRole('table', { name: 'Assinaturas' }).getByRole('row').nth(1);
    await expect(subscription.textContent()).resolves.toContain('o segredo anterior ainda assina por');
    await page.getByRole('button', { name: 'Desativar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Desativar' }).click();
    await page.getByRole('button', { name: 'Reativar' }).waitFor({ timeout: 10_000 });
    await expect(subscription.textContent()).resolves.toContain('desativada');
    await page.getByRole('button', { name: 'Reativar' }).click();
    await page.getByRole('button', { name: 'Desativar' }).waitFor({ timeout: 10_000 });
    // Re-enabling starts the failure run again (spec-notes W4).
    await expect(subscription.textContent()).resolves.toMatch(/ativa\s*0/);
    await context.close();
  }, 120_000);

  it('a seller sees a connected app with its permissions and disconnects it: its token stops working and its subscriptions stop receiving events', async () => {
    const { seller, tenantId, app, token } = await sellerWithFailedDelivery();
    await recordConsent(
      platform.database.db,
      { clientId: app.clientId, sellerId: seller.sellerId, tenants: [tenantId] },
      ['open:order-order:read', 'open:webhook:write'],
      platform.clock,
    );
    const page = await signInToConsole(browser, platform.url, seller, 'pt-BR');
    const context = page.context();
    await page.getByRole('link', { name: 'Store 1' }).click();
    await page.getByRole('navigation', { name: 'Seções da loja' }).getByRole('link', { name: 'Aplicativos conectados' }).click();
    await page.getByRole('heading', { name: 'Aplicativos conectados a Store 1' }).waitFor({ timeout: 10_000 });
    const row = page.getByRole('table').getByRole('row').nth(1);
    await expect(row.textContent()).resolves.toMatch(/Acme Integrações.*Ver seus pedidos.*Assinar notificações/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    const before = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/hooks`);
    expect(before.statusCode).toBe(200);
    await page.getByRole('button', { name: 'Desconectar Acme Integrações' }).click();
    // D69: disconnecting asks first, in a dialog.
    await page.getByRole('dialog').getByRole('button', { name: 'Desconectar', exact: true }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Acme Integrações foi desconectado');
    await expect(page.getByText('Nenhum aplicativo está conectado a esta loja.').count()).resolves.toBe(1);
    // The app's next call with its token fails: the token family is revoked.
    const after = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/hooks`);
    expect(after.statusCode).toBe(401);
    // Its subscriptions are disabled: a new record change makes no delivery for it.
    const deliveriesBefore = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .execute();
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    const deliveriesAfter = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .execute();
    expect(deliveriesAfter.length).toBe(deliveriesBefore.length);
    await context.close();
  }, 120_000);

  it("a seller cannot open another seller's store or delivery by URL (404), in the page or the JSON API", async () => {
    const mine = await platform.createSeller({ tenants: 1 });
    const theirs = await sellerWithFailedDelivery();
    const page = await signInToConsole(browser, platform.url, mine, 'en-US');
    const context = page.context();
    for (const path of [
      `/console/stores/${theirs.tenantId}/webhooks`,
      `/console/stores/${theirs.tenantId}/webhooks/deliveries/${theirs.deliveryId}`,
      `/console/stores/${mine.tenantIds[0]}/webhooks/deliveries/${theirs.deliveryId}`,
    ]) {
      const response = await page.goto(`${platform.url}${path}`);
      expect(response?.status(), path).toBe(404);
      await page.getByRole('heading', { name: 'Not found' }).waitFor({ timeout: 10_000 });
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    const api = await context.request.get(`${platform.url}/seller/v1/webhooks/deliveries/${theirs.deliveryId}`);
    expect(api.status()).toBe(404);
    const list = await context.request.get(`${platform.url}/seller/v1/webhooks/deliveries`);
    expect(((await list.json()) as { results: unknown[] }).results).toEqual([]);
    // A resend without the CSRF header is refused even for one's own session.
    const resend = await context.request.post(`${platform.url}/seller/v1/webhooks/deliveries/${theirs.deliveryId}/redeliver`);
    expect(resend.status()).toBe(403);
    await context.close();
  }, 120_000);

  it('the console refuses to be framed and allows only its own scripts', async () => {
    const res = await fetch(`${platform.url}/console`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const unauth = await fetch(`${platform.url}/seller/v1/webhooks/deliveries`);
    expect(unauth.status).toBe(401);
  });
});
