import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import type { LoopbackReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { axeViolations } from './axe.js';
import { signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

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

  webhooksInChromium(
    target,
    (opened) => {
      ({ platform, browser, hooks } = opened);
    },
    () => ({ status: 200, body: 'ok' }),
  );

  it('D143: "Excluir a assinatura" asks with a danger button, cancel keeps it, yes deletes it and its deliveries; without JavaScript a confirmation page; pt-BR at 375 px and English at 1280 px, axe clean', async () => {
    const {
      seller,
      tenantId,
      subscriptions: subs,
    } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`, ['sac_ticket', 'order']);
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
    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 375, height: 800 },
      timeout: 15_000,
    });
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
    await page.context().close();

    // English, desktop, no JavaScript: the button answers a confirmation page; its yes deletes.
    const order = subs.find((s) => s.topic === 'order')?.id as string;
    const noJs = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      javaScriptEnabled: false,
    });
    await noJs.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${order}`);
    await noJs.getByRole('button', { name: 'Delete the subscription' }).click();
    await noJs.getByRole('heading', { name: 'Delete the Orders subscription (Acme Integrações)?' }).waitFor();
    expect(await countOf('webhook_subscriptions', 'id', order)).toBe(1);
    await noJs.getByRole('button', { name: 'Delete the subscription' }).click();
    await noJs.waitForURL(/done=deleted/);
    expect(await countOf('webhook_subscriptions', 'id', order)).toBe(0);
    await noJs.context().close();
  }, 240_000);
});
