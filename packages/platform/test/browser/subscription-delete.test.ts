import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordConsent } from '../../src/identity/consent-store.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { chromiumLaunchOptions, type ListeningPlatform, listenPlatform, testTls } from '../../src/testing.js';
import { type LoopbackReceiver, startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, SELLER_SCOPES, signup } from '../webhooks/webhook-kit.js';
import { axeViolations } from './axe.js';
import { signInOn } from './console-sign-in.js';

/**
 * Deleting a subscription from its page (D143: a destruction, so asked first
 * with a danger-coloured confirmation): cancel keeps it; confirming deletes it
 * with its deliveries, back on the webhooks page with a notice. Without
 * JavaScript the same question comes as a page.
 */
describe.each(testDatabaseTargets())('deleting a subscription on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;

  beforeAll(async () => {
    platform = await listenPlatform(target, { outboundCa: testTls.ca });
    hooks = await startReceiver({ tls: true, answer: () => ({ status: 200, body: 'ok' }) });
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    await hooks?.close();
    await platform?.close();
  });

  it('D143: "Excluir a assinatura" asks with a danger button, cancel keeps it, yes deletes it and its deliveries; without JavaScript a confirmation page; pt-BR at 375 px and English at 1280 px, axe clean', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const app = await platform.createClient({ name: 'Acme Integrações' });
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
    await recordConsent(
      platform.database.db,
      { clientId: app.clientId, sellerId: seller.sellerId, tenants: [tenantId] },
      [...SELLER_SCOPES],
      platform.clock,
    );
    const signed = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/hooks`, [
      'sac_ticket',
      'order',
    ]);
    const subs = (signed.json() as { subscriptions: Array<{ id: string; topic: string }> }).subscriptions;
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    const countOf = async (table: 'webhook_subscriptions' | 'webhook_deliveries', column: string, id: string) =>
      (
        await platform.database.db
          .selectFrom(table)
          .select('id')
          .where(column as 'id', '=', id)
          .execute()
      ).length;

    // pt-BR, phone: the dialog's yes is the danger colour; cancel keeps the subscription.
    const ticket = subs.find((s) => s.topic === 'sac_ticket')?.id as string;
    const pt = await browser.newContext({ locale: 'pt-BR', viewport: { width: 375, height: 800 } });
    pt.setDefaultTimeout(15_000);
    const page = await pt.newPage();
    await signInOn(page, platform.url, seller);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${ticket}`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Excluir a assinatura' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.locator('h2').textContent()).resolves.toBe(
      'Excluir a assinatura de Atendimentos (SAC) (Acme Integrações)?',
    );
    const yes = dialog.getByRole('button', { name: 'Excluir a assinatura' });
    expect(await yes.evaluate((button) => button.classList.contains('danger'))).toBe(true);
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    expect(await countOf('webhook_subscriptions', 'id', ticket)).toBe(1);
    await page.getByRole('button', { name: 'Excluir a assinatura' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir a assinatura' }).click();
    await page.waitForURL(/done=deleted/);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Assinatura excluída.');
    expect(await countOf('webhook_subscriptions', 'id', ticket)).toBe(0);
    expect(await countOf('webhook_deliveries', 'subscription_id', ticket)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await pt.close();

    // English, desktop, no JavaScript: the button answers a confirmation page; its yes deletes.
    const order = subs.find((s) => s.topic === 'order')?.id as string;
    const en = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const noJs = await en.newPage();
    await signInOn(noJs, platform.url, seller);
    await noJs.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${order}`);
    await noJs.getByRole('button', { name: 'Delete the subscription' }).click();
    await noJs.getByRole('heading', { name: 'Delete the Orders subscription (Acme Integrações)?' }).waitFor();
    expect(await countOf('webhook_subscriptions', 'id', order)).toBe(1);
    await noJs.getByRole('button', { name: 'Delete the subscription' }).click();
    await noJs.waitForURL(/done=deleted/);
    expect(await countOf('webhook_subscriptions', 'id', order)).toBe(0);
    await en.close();
  }, 240_000);
});
