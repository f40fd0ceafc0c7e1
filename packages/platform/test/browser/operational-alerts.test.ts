import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, pollUntil } from '../../src/testing.js';
import { type LoopbackReceiver, type ReceivedRequest, startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { axeViolations } from './axe.js';
import { signedWith, signInOn, signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

/**
 * Operational webhooks (D141): the seller sets an alert address in the
 * console and gets its secret once; a subscription failing 5 times in a row
 * sends `endpoint.failing` there, the W4 disabling sends `endpoint.disabled`,
 * both signed like deliveries and checked by a real receiver; the webhooks
 * page says the same in a notice, and a dead delivery of the disabled
 * subscription says why resending will not deliver.
 */
describe.each(testDatabaseTargets())('operational webhooks on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;
  let alerts: LoopbackReceiver;

  webhooksInChromium(
    target,
    (opened) => {
      ({ platform, browser, hooks } = opened);
    },
    () => ({ status: 500, body: 'down' }),
  );
  beforeAll(async () => {
    alerts = await startReceiver({ tls: true, answer: () => ({ status: 200, body: 'ok' }) });
  });
  afterAll(() => alerts?.close());

  it('D141 / spec-notes W4: endpoint.failing after 5 failures in a row and endpoint.disabled at the W4 disabling reach the chosen address, signed with its secret; the console says both; pt-BR at 375 px and English at 1280 px, axe clean', async () => {
    const { seller, tenantId, subscriptions } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`);
    const subscriptionId = subscriptions[0]?.id as string;

    // The seller chooses the address in the console: its secret is shown once.
    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 375, height: 800 },
      timeout: 15_000,
    });
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/alerts`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Endereço (HTTPS)').fill(`${alerts.url}/ops`);
    await page.getByRole('button', { name: 'Salvar o endereço' }).click();
    const secretBox = page.getByLabel('Segredo de assinatura dos alertas');
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await axeViolations(page)).toEqual([]);

    // Five events, each failing once: the run reaches the streak and the address hears endpoint.failing, once.
    for (let i = 0; i < 5; i++) await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    await dispatcherOf(platform).runOnce();
    const [failing] = await alerts.waitFor(1);
    expect(signedWith(failing as ReceivedRequest, secret)).toBe(true);
    const failingBody = JSON.parse((failing as ReceivedRequest).raw.toString());
    expect(failingBody.type).toBe('endpoint.failing');
    expect(failingBody.data).toMatchObject({ store_id: tenantId, subscription_id: subscriptionId, failure_streak: 5 });
    expect(failing?.headers['webhook-signature']).toBeTruthy();

    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const notice = page.locator('#alerts');
    await expect(notice.textContent()).resolves.toMatch(
      /Assinatura de Atendimentos \(SAC\) \(Acme Integrações\) está falhando: 5 tentativas sem sucesso/,
    );
    expect(await axeViolations(page)).toEqual([]);

    // The failures run past the W4 period: the platform disables the subscription and says so.
    await pollUntil(
      'the subscription disabled by W4',
      async () => {
        // A new event a day keeps the run of failures going (each delivery alone dies within two days).
        platform.clock.advance(24 * 3_600_000);
        await recordChange(platform, { tenantId });
        await dispatcherOf(platform).runOnce();
        const row = await platform.database.db
          .selectFrom('webhook_subscriptions')
          .select('state')
          .where('id', '=', subscriptionId)
          .executeTakeFirstOrThrow();
        return row.state === 'disabled' ? true : undefined;
      },
      { deadlineMs: 90_000 },
    );
    // A day on, the disabled subscription's deliveries still waiting for a retry are given up when they fall due.
    platform.clock.advance(24 * 3_600_000);
    await dispatcherOf(platform).runOnce();
    const received = await alerts.waitFor(2);
    const disabled = received.find((r) => JSON.parse(r.raw.toString()).type === 'endpoint.disabled');
    expect(disabled).toBeDefined();
    expect(signedWith(disabled as ReceivedRequest, secret)).toBe(true);
    expect(received.filter((r) => JSON.parse(r.raw.toString()).type === 'endpoint.failing')).toHaveLength(1);

    // Days went by: the console session has ended, so the seller signs in again.
    await signInOn(page, platform.url, seller);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await expect(page.locator('#alerts').textContent()).resolves.toContain('foi desativada automaticamente');
    // A dead delivery of the disabled subscription says why resending will not deliver.
    const dead = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', subscriptionId)
      .where('state', '=', 'dead')
      .executeTakeFirstOrThrow();
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/deliveries/${dead.id}`);
    await expect(page.locator('#resend-disabled').textContent()).resolves.toContain('reenviar agora não entrega');
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/alerts`);
    await expect(page.locator('tbody tr').count()).resolves.toBeGreaterThanOrEqual(2);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();

    // English at desktop width: the same page and notice, axe clean.
    const enPage = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      colorScheme: 'dark',
    });
    await enPage.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await expect(enPage.locator('#alerts').textContent()).resolves.toContain('was disabled automatically');
    expect(await axeViolations(enPage)).toEqual([]);
    await enPage.goto(`${platform.url}/console/stores/${tenantId}/webhooks/alerts`);
    expect(await axeViolations(enPage)).toEqual([]);
    await enPage.context().close();
  }, 300_000);
});
