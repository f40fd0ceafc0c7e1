import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, pollUntil } from '../../src/testing.js';
import type { LoopbackReceiver } from '../webhooks/loopback-receiver.js';
import { recordChange } from '../webhooks/webhook-kit.js';
import { axeViolations } from './axe.js';
import { deliverAll, signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

/**
 * A delivery's state as the seller reads it in the log: pending, delivered,
 * failing but still retrying, and failed for good, each its own colour and
 * mark; the "Failed" filter counts the still-retrying ones too, as Stripe's
 * does. Real receiver, real dispatcher, real Chromium, both languages, phone
 * and desktop, light and dark.
 */
describe.each(testDatabaseTargets())('delivery states in the log on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;
  let failing = false;

  webhooksInChromium(
    target,
    (opened) => {
      ({ platform, browser, hooks } = opened);
    },
    () => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }),
  );

  async function deliveryOf(tenantId: string, eventId: string) {
    return platform.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('event_id', '=', eventId)
      .executeTakeFirstOrThrow();
  }

  /** The log's rows: each status pill's text, state class and colour. */
  const rowsOf = (page: Page) =>
    page.locator('#delivery-list tbody tr').evaluateAll((rows) =>
      rows.map((row) => {
        const pill = row.querySelector('.pill') as HTMLElement;
        return {
          text: pill.textContent?.trim(),
          state: [...pill.classList].find((c) => c.startsWith('st-')),
          colour: getComputedStyle(pill).color,
        };
      }),
    );

  it('spec-notes W4 / Stripe "Failed": pending, delivered, failing-retrying and dead each show distinctly; the Failed filter includes the retrying ones; D156: the log says how many match (10.000+ past its cap); pt-BR at 375 px dark and English at 1280 px light, axe clean', async () => {
    const { seller, tenantId } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`);

    // One event fails every attempt of its cycle: dead.
    failing = true;
    const deadEvent = await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    await pollUntil(
      'the first delivery dead after its cycle',
      async () => {
        if ((await deliveryOf(tenantId, deadEvent)).state === 'dead') return true;
        // Past the longest retry wait (10 h + 20 %), well inside the W4 period: the subscription stays active.
        platform.clock.advance(12 * 3_600_000);
        await deliverAll(platform, tenantId);
        return undefined;
      },
      { deadlineMs: 60_000 },
    );
    // One fails once and will try again: failing, retrying.
    const failingEvent = await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    // One is delivered.
    failing = false;
    const deliveredEvent = await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    expect((await deliveryOf(tenantId, failingEvent)).state).toBe('pending');
    expect(Number((await deliveryOf(tenantId, failingEvent)).attempts)).toBe(1);
    expect((await deliveryOf(tenantId, deliveredEvent)).state).toBe('succeeded');

    for (const [locale, width, colorScheme] of [
      ['pt-BR', 375, 'dark'],
      ['en-US', 1280, 'light'],
    ] as const) {
      const pt = locale === 'pt-BR';
      const page = await signInToConsole(browser, platform.url, seller, {
        locale,
        viewport: { width, height: 900 },
        colorScheme,
        timeout: 15_000,
      });
      await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
      const rows = await rowsOf(page);
      const byState = new Map(rows.map((r) => [r.state, r]));
      expect([...byState.keys()].sort()).toEqual(['st-dead', 'st-failing', 'st-succeeded']);
      expect(byState.get('st-failing')?.text).toBe(pt ? 'falhando, tentando de novo' : 'failing, retrying');
      expect(byState.get('st-dead')?.text).toBe(pt ? 'falhou' : 'failed');
      expect(byState.get('st-succeeded')?.text).toBe(pt ? 'entregue' : 'succeeded');
      // Each state its own colour.
      expect(new Set(rows.map((r) => r.colour)).size).toBe(3);
      // D156: how many match, beside the paging.
      await expect(page.locator('#delivery-count').textContent()).resolves.toBe(pt ? '1–3 de 3 entregas' : '1–3 of 3 deliveries');
      expect(await axeViolations(page)).toEqual([]);

      // "Failed" keeps the retrying one and the dead one, not the delivered one.
      await page.getByLabel(pt ? 'Situação' : 'Status').selectOption('failed');
      await page.getByRole('button', { name: pt ? 'Filtrar' : 'Filter' }).click();
      await page.waitForURL(/status=failed/);
      const failed = await rowsOf(page);
      expect(failed.map((r) => r.state).sort()).toEqual(['st-dead', 'st-failing']);
      await expect(page.locator('#delivery-count').textContent()).resolves.toBe(pt ? '1–2 de 2 entregas' : '1–2 of 2 deliveries');
      expect(await axeViolations(page)).toEqual([]);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect(sideways).toBe(false);
      await page.context().close();
    }

    // A resent delivery starts a new cycle: pending, with its own colour, different from the other three.
    const failingRow = await deliveryOf(tenantId, failingEvent);
    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 1280, height: 900 },
    });
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/deliveries/${failingRow.id}`);
    await page.getByRole('button', { name: 'Reenviar agora' }).click();
    await page.waitForURL(/resent=1/);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const after = await rowsOf(page);
    expect(after.map((r) => r.state).sort()).toEqual(['st-dead', 'st-pending', 'st-succeeded']);
    expect(new Set(after.map((r) => r.colour)).size).toBe(3);
    // The count follows the live log: a new delivery shows with the count it makes.
    await page.locator('#delivery-list[data-connected]').waitFor({ state: 'attached', timeout: 10_000 });
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    await expect.poll(() => page.locator('#delivery-count').textContent(), { timeout: 10_000 }).toBe('1–4 de 4 entregas');

    // D156: a store past the count's cap says "10.000+" on every page of the log, and counts a filter as exactly as before.
    const subscriptionId = failingRow.subscription_id;
    const old = new Date(platform.clock.now().getTime() - 30 * 24 * 3_600_000).toISOString();
    for (let batch = 0; batch < 11; batch++) {
      const values = Array.from({ length: batch < 10 ? 1000 : 1 }, (_, i) => {
        const n = `${batch}-${i}`;
        return {
          id: `00000000-0000-7000-8000-${String(batch * 1000 + i).padStart(12, '0')}`,
          event_id: `bulk-${n}`,
          subscription_id: subscriptionId,
          tenant_id: tenantId,
          topic: 'sac_ticket',
          state: 'succeeded' as const,
          event_created_at: old,
          created_at: old,
          updated_at: old,
        };
      });
      await platform.database.db.insertInto('webhook_deliveries').values(values).execute();
    }
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await expect(page.locator('#delivery-count').textContent()).resolves.toBe('1–50 de 10.000+ entregas');
    await page.getByRole('link', { name: 'Entregas anteriores' }).click();
    await expect(page.locator('#delivery-count').textContent()).resolves.toBe('51–100 de 10.000+ entregas');
    await page.getByLabel('Situação').selectOption('failed');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/status=failed/);
    await expect(page.locator('#delivery-count').textContent()).resolves.toBe('1–1 de 1 entrega');
    await page.context().close();
  }, 240_000);
});
