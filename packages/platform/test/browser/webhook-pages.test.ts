import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { toZonedInput } from '../../src/console/console-kit.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, pollUntil } from '../../src/testing.js';
import type { LoopbackReceiver, ReceivedRequest } from '../webhooks/loopback-receiver.js';
import { recordChange, signup } from '../webhooks/webhook-kit.js';
import { axeViolations as allAxeViolations } from './axe.js';
import { deliverAll, signedWith, signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

/** What the receiver answers with besides its body: a header of its own, and a cookie the log must never keep. */
const RECEIVER_HEADERS = { 'x-receiver-trace': 'trace-7f3a', 'set-cookie': 'receiver_session=c00kie-value; HttpOnly' };

const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

/** Every axe violation of any impact (the webhook pages hold to none). */
async function axeViolations(page: Page) {
  return (await allAxeViolations(page)).map((v) => `${v.id}: ${v.nodes.join(' ')}`);
}

/**
 * The webhook pages in a real Chromium, in both languages and at phone and
 * desktop widths: the delivery log (paging, filters, search, endpoints,
 * masked URLs), a delivery's live summary, a subscription's page (test event
 * to a real receiver, secret behind a confirmation, URL editing with the
 * SSRF guard), rotation with a chosen grace, confirmations and notices.
 */
describe.each(testDatabaseTargets())('webhook pages in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;
  /** What the receiver verifies with (null: accept anything), and whether it fails on purpose. */
  let receiverSecret: string | null = null;
  let failing = false;

  webhooksInChromium(
    target,
    (opened) => {
      ({ platform, browser, hooks } = opened);
    },
    (request) => {
      if (failing) return { status: 500, headers: RECEIVER_HEADERS, body: 'down' };
      if (receiverSecret && !signedWith(request, receiverSecret)) return { status: 401, body: 'bad signature' };
      return { status: 200, headers: RECEIVER_HEADERS, body: 'ok' };
    },
  );

  /** A store with the app connected and subscribed to `topics` at `path` of the receiver. */
  const storeWithApp = (topics: Array<'sac_ticket' | 'order'> = ['sac_ticket'], path = '/hooks') =>
    storeWithSubscribedApp(platform, `${hooks.url}${path}`, topics);

  /** The seller signed in at `viewport` in `colorScheme`, the clipboard readable (the copy buttons are tested). */
  const signIn = (
    seller: { login: string; password: string },
    locale: 'pt-BR' | 'en-US',
    viewport = DESKTOP,
    colorScheme: 'light' | 'dark' = 'light',
  ) =>
    signInToConsole(browser, platform.url, seller, {
      locale,
      viewport,
      colorScheme,
      permissions: ['clipboard-read', 'clipboard-write'],
      timeout: 15_000,
    });

  async function subscriptionRow(id: string) {
    return platform.database.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('D63/D65/D156: the delivery log pages past 50 by cursor with how many match, filters by event type, endpoint and period, finds a delivery by the end of its id or its event id, names each endpoint with its URL masked; pt-BR at 375 px, axe clean', async () => {
    receiverSecret = null;
    failing = false;
    const { seller, tenantId, subscriptions } = await storeWithApp(['sac_ticket', 'order'], '/hooks?token=s3cr3t');
    // 40 ticket events at one instant (their ids share the time prefix), then 20 order events two hours later.
    const first = platform.clock.now();
    for (let i = 0; i < 40; i++) await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    platform.clock.advance(2 * 3_600_000);
    const eventIds: string[] = [];
    for (let i = 0; i < 20; i++) eventIds.push(await recordChange(platform, { tenantId, topic: 'order' }));
    await deliverAll(platform, tenantId);

    const page = await signIn(seller, 'pt-BR', PHONE);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const rows = page.locator('#delivery-list tbody tr');
    await expect(rows.count()).resolves.toBe(50);
    // Each row names the app and the URL, whose query value is masked; the secret never appears.
    await expect(rows.first().textContent()).resolves.toContain('Acme Integrações');
    await expect(rows.first().textContent()).resolves.toContain('/hooks?token=•••');
    expect(await page.content()).not.toContain('s3cr3t');
    // Ids are shown by their distinguishing end: no two rows alike.
    const shown = await page.locator('#delivery-list tbody tr td:first-child a code').allTextContents();
    expect(new Set(shown).size).toBe(50);
    expect(await axeViolations(page)).toEqual([]);
    // The copy button puts the whole id on the clipboard.
    const firstId = (await rows.first().locator('button.copy').getAttribute('data-copy')) as string;
    await rows
      .first()
      .getByRole('button', { name: `Copiar ${firstId}` })
      .click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()'), { timeout: 5_000 }).toBe(firstId);

    // D156: each page says where it is among all that match.
    const count = page.locator('#delivery-count');
    await expect(count.textContent()).resolves.toBe('1–50 de 60 entregas');
    await page.getByRole('link', { name: 'Entregas anteriores' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(10);
    await expect(count.textContent()).resolves.toBe('51–60 de 60 entregas');
    await expect(page.getByRole('link', { name: 'Entregas anteriores' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Entregas mais recentes' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(50);

    // Event type.
    await page.getByLabel('Tipo de evento').selectOption('order');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(20);
    await expect(count.textContent()).resolves.toBe('1–20 de 20 entregas');
    // Endpoint: the ticket subscription only, then the period from an hour after the first batch (São Paulo time).
    await page.getByLabel('Tipo de evento').selectOption('');
    const tickets = subscriptions.find((s) => s.topic === 'sac_ticket')?.id as string;
    await page.getByLabel('Endpoint').selectOption(tickets);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(40);
    await page.getByLabel('Endpoint').selectOption('');
    await page.getByLabel('De', { exact: true }).fill(toZonedInput(new Date(first.getTime() + 3_600_000), 'America/Sao_Paulo'));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(20);
    expect(await axeViolations(page)).toEqual([]);

    // Search by the end of a delivery id, then by an event id.
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const someId = (await rows.nth(7).locator('button.copy').getAttribute('data-copy')) as string;
    await page.getByLabel('ID da entrega ou do evento').fill(someId.slice(-12));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    await expect(rows.first().locator('button.copy').getAttribute('data-copy')).resolves.toBe(someId);
    await page.getByLabel('ID da entrega ou do evento').fill(eventIds[3] as string);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('Pedidos');
    await page.context().close();
  }, 180_000);

  it('D63: a delivery page names its app, subscription and URL; the summary counts a live second attempt; after "Resend now" attempts are numbered 1, 2, 3; en at 1280 px', async () => {
    receiverSecret = null;
    failing = true;
    const { seller, tenantId } = await storeWithApp();
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    const delivery = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    const page = await signIn(seller, 'en-US', DESKTOP);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/deliveries/${delivery.id}`);
    const facts = page.locator('dl.facts');
    await expect(facts.textContent()).resolves.toMatch(
      /Acme Integrações.*Customer service tickets subscription \(Acme Integrações\).*\/hooks/s,
    );
    await expect(facts.textContent()).resolves.toContain(delivery.event_id);
    await expect(page.locator('#delivery-summary').textContent()).resolves.toContain('1 attempt in all');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('#attempts[data-connected]').waitFor({ state: 'attached', timeout: 10_000 });
    await page.evaluate('window.marker = 1');
    // The retry is due after its back-off: move the clock there and let the dispatcher try again.
    platform.clock.advance(3_600_000);
    await deliverAll(platform, tenantId);
    await expect.poll(() => page.locator('#delivery-summary').textContent(), { timeout: 10_000 }).toContain('2 attempts in all');
    expect(await page.evaluate('window.marker')).toBe(1);
    failing = false;
    await page.getByRole('button', { name: 'Resend now' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await page.locator('#attempts[data-connected]').waitFor({ state: 'attached', timeout: 10_000 });
    await deliverAll(platform, tenantId);
    await expect.poll(() => page.locator('#delivery-summary').textContent(), { timeout: 10_000 }).toContain('3 attempts in all');
    const numbers = await page.locator('#attempts tbody tr td:first-child').allTextContents();
    expect(numbers).toEqual(['1', '2', '3']);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('D66: a subscription page sends a test event that a real receiver verifies, shows the success rate and chart, reveals the secret only after a confirmation (cancel keeps it hidden), and edits the URL behind the SSRF guard; pt-BR at 375 px and en at 1280 px', async () => {
    failing = false;
    const { seller, tenantId, subscriptions } = await storeWithApp();
    const subscription = subscriptions[0] as { id: string; parameters: { secret: string } };
    receiverSecret = subscription.parameters.secret;
    for (const [locale, viewport] of [
      ['pt-BR', PHONE],
      ['en-US', DESKTOP],
    ] as const) {
      const page = await signIn(seller, locale, viewport);
      const pt = locale === 'pt-BR';
      await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
      await page
        .getByRole('link', {
          name: pt
            ? 'Abrir a assinatura de Atendimentos (SAC) (Acme Integrações)'
            : 'Open the Customer service tickets subscription (Acme Integrações)',
        })
        .click();
      await page
        .getByRole('heading', {
          name: pt
            ? 'Assinatura de Atendimentos (SAC) (Acme Integrações)'
            : 'Customer service tickets subscription (Acme Integrações)',
        })
        .waitFor({ timeout: 10_000 });
      const before = hooks.received.length;
      await page.getByRole('button', { name: pt ? 'Enviar um evento de teste' : 'Send a test event' }).click();
      await page.getByRole('status').waitFor({ timeout: 10_000 });
      // The redirect lands on the deliveries, and the notice is there, in view (not scrolled above it).
      const inView = await page
        .getByRole('status')
        .evaluate((notice) => notice.getBoundingClientRect().top >= 0 && notice.getBoundingClientRect().bottom <= innerHeight);
      expect(inView).toBe(true);
      await deliverAll(platform, tenantId);
      const [, ...after] = await hooks.waitFor(before + 1);
      const received = hooks.received[before] as ReceivedRequest;
      expect(after.length).toBeGreaterThanOrEqual(0);
      expect(signedWith(received, subscription.parameters.secret)).toBe(true);
      expect(JSON.parse(received.raw.toString()).topic).toBe('sac_ticket');
      // Reloaded, the page shows the test delivery among the recent ones and a 100% success rate with a chart.
      await page.goto(page.url().split('?')[0] as string);
      await expect(page.locator('#deliveries + .table-wrap tbody tr').count()).resolves.toBeGreaterThanOrEqual(1);
      await expect(page.locator('#health + p').textContent()).resolves.toContain('100');
      await page.locator('#subscription-chart .uplot').first().waitFor({ timeout: 10_000 });
      expect(await axeViolations(page)).toEqual([]);

      // Reveal: cancel keeps the secret hidden; confirming shows it.
      const reveal = page.getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' });
      await reveal.click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: pt ? 'Cancelar' : 'Cancel' }).click();
      await expect(page.getByRole('dialog').count()).resolves.toBe(0);
      expect(await page.content()).not.toContain(subscription.parameters.secret);
      await reveal.click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' })
        .click();
      const secretBox = page.getByLabel(pt ? 'Segredo de assinatura atual' : 'Current signing secret');
      await secretBox.waitFor({ timeout: 10_000 });
      await expect(secretBox.inputValue()).resolves.toBe(subscription.parameters.secret);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }

    // Edit the URL: a private address is refused by the SSRF guard, in the page's language; a loopback one (sandbox) is saved.
    const page = await signIn(seller, 'pt-BR', PHONE);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
    await page.getByLabel('URL (HTTPS na v1)').fill('https://10.1.2.3/hooks');
    await page.getByRole('button', { name: 'Salvar URL' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('rede privada ou local');
    expect((await subscriptionRow(subscription.id)).url).toBe(`${hooks.url}/hooks`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('URL (HTTPS na v1)').fill(`${hooks.url}/moved?key=abc`);
    await page.getByRole('button', { name: 'Salvar URL' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    expect((await subscriptionRow(subscription.id)).url).toBe(`${hooks.url}/moved?key=abc`);
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('/moved?key=•••');
    expect(await page.content()).not.toContain('key=abc');
    await page.context().close();
  }, 180_000);

  it('D153: the event catalogue lists every topic with its schema and an example per event type; a test event of the chosen type is sent with the example as its body and is tagged as a test in the log and on its page; pt-BR at 375 px dark, en at 1280 px light, axe clean', async () => {
    receiverSecret = null;
    failing = false;
    const { seller, tenantId, subscriptions } = await storeWithApp(['order'], '/catalogue');
    const subscription = subscriptions[0] as { id: string };
    // A real order event first: its delivery is no test, and its row carries no tag.
    await recordChange(platform, { tenantId, topic: 'order' });
    await deliverAll(platform, tenantId);
    // The test event comes a second later, so it is the newest row.
    platform.clock.advance(1000);

    const page = await signIn(seller, 'pt-BR', PHONE, 'dark');
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await page.getByRole('link', { name: 'Catálogo de eventos: cada evento com seu esquema e exemplos' }).click();
    await page.getByRole('heading', { name: 'Catálogo de eventos', level: 1 }).waitFor({ timeout: 10_000 });
    // Every topic, by its label with its slug as code, and an example per event type.
    for (const name of [
      'Pedidos order',
      'Produtos product',
      'Atendimentos (SAC) sac_ticket',
      'Transações financeiras financial_transaction',
    ])
      await page.getByRole('heading', { name, level: 2 }).waitFor({ timeout: 10_000 });
    await expect(page.locator('[id^="event-"][id$="-json"]').count()).resolves.toBe(12);
    const example = JSON.parse((await page.locator('#event-order-CREATION-json').textContent()) as string);
    expect(example).toEqual({
      data: {
        status: 'CREATION',
        params: { id: '00000000-0000-7000-8000-000000000000' },
        resource: '/v1/orders/00000000-0000-7000-8000-000000000000',
      },
      tenant_id: tenantId,
      topic: 'order',
    });
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
    expect(await axeViolations(page)).toEqual([]);

    // The subscription page: the event type is chosen beside the button; the body sent is the catalogue's example.
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
    // A type the catalogue does not have (a hand-made form) sends nothing and says so.
    await page
      .locator('#test-status option')
      .first()
      .evaluate((option: HTMLOptionElement) => {
        option.value = 'PURGE';
      });
    await page.getByRole('button', { name: 'Enviar um evento de teste' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Nada foi enviado: escolha um dos tipos de evento da lista.',
    );
    await page.getByLabel('Tipo do evento de teste').selectOption({ label: 'Criação (CREATION)' });
    const before = hooks.received.length;
    await page.getByRole('button', { name: 'Enviar um evento de teste' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await deliverAll(platform, tenantId);
    await hooks.waitFor(before + 1);
    const received = hooks.received[before] as ReceivedRequest;
    expect(received.raw.toString()).toBe(JSON.stringify(example));
    // Tagged in the subscription's recent deliveries (the real order's row is not), on the delivery's page, and stored so.
    await page.goto(page.url().split('?')[0] as string);
    const rows = page.locator('#deliveries ~ .table-wrap tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.first().locator('.tag').textContent()).resolves.toBe('teste');
    await expect(rows.nth(1).locator('.tag').count()).resolves.toBe(0);
    await rows.first().locator('a').first().click();
    await page.getByRole('heading', { level: 1, name: /teste$/ }).waitFor({ timeout: 10_000 });
    await expect(page.locator('main').textContent()).resolves.toContain('Um evento de teste enviado pelo console');
    expect(await axeViolations(page)).toEqual([]);
    const stored = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select(['is_test'])
      .where('subscription_id', '=', subscription.id)
      .orderBy('created_at')
      .execute();
    expect(stored.map((row) => Number(row.is_test ?? 0))).toEqual([0, 1]);
    await page.context().close();

    // en at 1280 px, light: the log's row says "test", and the catalogue is clean there too.
    const en = await signIn(seller, 'en-US', DESKTOP);
    await en.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await expect(en.locator('#delivery-list tbody tr').first().locator('.tag').textContent()).resolves.toBe('test');
    await en.goto(`${platform.url}/console/stores/${tenantId}/webhooks/events`);
    await en.getByRole('heading', { name: 'Event catalogue', level: 1 }).waitFor({ timeout: 10_000 });
    expect(await axeViolations(en)).toEqual([]);
    await en.context().close();
  }, 120_000);

  it("D154: a subscription carries the seller's description: set when adding an endpoint, edited on its page (escaped, one line of at most 200 characters, empty removes it), shown in the subscriptions table and in the seller API; pt-BR at 375 px dark, en at 1280 px light, axe clean", async () => {
    receiverSecret = null;
    failing = false;
    const { seller, tenantId, subscriptions, token } = await storeWithApp(['sac_ticket'], '/described');
    const subscription = subscriptions[0] as { id: string };
    const page = await signIn(seller, 'pt-BR', PHONE, 'dark');
    // Adding an endpoint with a description: the new subscription has it.
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/new`);
    await page.getByLabel('URL (HTTPS na v1)').fill(`${hooks.url}/orders`);
    await page.locator('input[name="topics"][value="order"]').check();
    await page.getByLabel('Descrição (opcional)').fill('  Pedidos do ERP  ');
    await page.getByRole('button', { name: 'Adicionar endpoint' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('Pedidos do ERP');

    // Edited on the tickets subscription's page; markup is shown as text.
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
    const field = page.getByLabel('Descrição (opcional)');
    await field.fill('<b>SAC</b> & "Zendesk"');
    await page.getByRole('button', { name: 'Salvar descrição' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Descrição salva');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('<b>SAC</b> & "Zendesk"');
    await expect(page.locator('dl.facts b').count()).resolves.toBe(0);
    // Longer than 200 characters (the field's own limit lifted, as a hand-made request would): refused beside the field, kept.
    await field.evaluate((input) => input.removeAttribute('maxlength'));
    await field.fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Salvar descrição' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'A descrição deve ter uma linha de no máximo 200 caracteres.',
    );
    expect((await subscriptionRow(subscription.id)).description).toBe('<b>SAC</b> & "Zendesk"');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();

    // en at 1280 px: the subscriptions table shows both descriptions; the seller API returns them.
    const en = await signIn(seller, 'en-US', DESKTOP);
    await en.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    const table = en.locator('table[aria-labelledby="subs"]');
    await expect(table.textContent()).resolves.toContain('<b>SAC</b> & "Zendesk"');
    await expect(table.textContent()).resolves.toContain('Pedidos do ERP');
    expect(await axeViolations(en)).toEqual([]);
    const listed = await platform.app.inject({
      url: '/seller/v1/webhooks/subscriptions',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(
      (listed.json() as { results: Array<{ id: string; description: string | null }> }).results.find(
        (r) => r.id === subscription.id,
      )?.description,
    ).toBe('<b>SAC</b> & "Zendesk"');
    // Emptied, it is removed.
    await en.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
    await en.getByLabel('Description (optional)').fill('');
    await en.getByRole('button', { name: 'Save description' }).click();
    await en.getByRole('status').waitFor({ timeout: 10_000 });
    expect((await subscriptionRow(subscription.id)).description).toBeNull();
    await en.context().close();
  }, 120_000);

  it('D98: past the re-authentication window the reveal asks for the password, in the page language; a wrong one is refused with a clear message, the right one shows the secret; the confirm button is not styled as destructive; en and pt-BR', async () => {
    const { seller, tenantId, subscriptions } = await storeWithApp();
    const subscription = subscriptions[0] as { id: string; parameters: { secret: string } };
    for (const locale of ['en-US', 'pt-BR'] as const) {
      const pt = locale === 'pt-BR';
      const page = await signIn(seller, locale, pt ? PHONE : DESKTOP);
      await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
      await page.getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' }).click();
      const yes = page.getByRole('dialog').getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' });
      expect(await yes.evaluate((button) => button.classList.contains('danger'))).toBe(false);
      await page
        .getByRole('dialog')
        .getByRole('button', { name: pt ? 'Cancelar' : 'Cancel' })
        .click();

      // Six minutes after signing in (the window is five), the same reveal asks for the password.
      platform.clock.advanceSeconds(6 * 60);
      await page.getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' })
        .click();
      const password = page.getByLabel(pt ? 'Senha' : 'Password');
      await password.waitFor({ timeout: 10_000 });
      await expect(page.locator('#reveal-reauth').textContent()).resolves.toContain(
        pt ? 'Você entrou há mais de 5 minutos' : 'You signed in more than 5 minutes ago',
      );
      expect(await page.content()).not.toContain(subscription.parameters.secret);
      expect(await axeViolations(page)).toEqual([]);
      await password.fill('not the password');
      await page.getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        pt ? 'Essa senha não está correta. O segredo continua oculto.' : 'That password is not correct. The secret stays hidden.',
      );
      expect(await page.content()).not.toContain(subscription.parameters.secret);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel(pt ? 'Senha' : 'Password').fill(seller.password);
      await page.getByRole('button', { name: pt ? 'Revelar o segredo' : 'Reveal the secret' }).click();
      const secretBox = page.getByLabel(pt ? 'Segredo de assinatura atual' : 'Current signing secret');
      await secretBox.waitFor({ timeout: 10_000 });
      await expect(secretBox.inputValue()).resolves.toBe(subscription.parameters.secret);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }
  }, 120_000);

  it('D64: rotation asks first (cancel keeps the secret), posts, redirects and gets (a reload rotates nothing); the seller picks a 6 h grace; a second rotation inside it keeps the original secret signing, which a receiver still on it verifies until the grace ends', async () => {
    failing = false;
    const { seller, tenantId, subscriptions } = await storeWithApp();
    const subscription = subscriptions[0] as { id: string; parameters: { secret: string } };
    const original = subscription.parameters.secret;
    receiverSecret = original;
    const page = await signIn(seller, 'pt-BR', PHONE);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    // The list's row disables and links to the subscription's page, where the secret is rotated.
    await expect(page.getByRole('button', { name: 'Trocar segredo' }).count()).resolves.toBe(0);
    await page
      .getByRole('link', { name: /^Gerenciar a assinatura de / })
      .first()
      .click();
    await page.waitForURL(`**/webhooks/subscriptions/${subscription.id}`);
    // Cancel keeps the secret as it was.
    const untouched = await subscriptionRow(subscription.id);
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    expect((await subscriptionRow(subscription.id)).secret_sealed).toBe(untouched.secret_sealed);
    const rotatedAt = platform.clock.now();
    await page.getByLabel('Segredo antigo assina por').selectOption('6');
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Trocar segredo' }).click();
    // D98: the rotation lands (GET) on a confirmation that does not hold the secret; its POST shows it.
    await page.getByRole('heading', { name: 'Seu novo segredo de assinatura está pronto' }).waitFor({ timeout: 10_000 });
    const landed = page.url();
    expect(landed).toContain('/secret?rotated=1');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Mostrar o novo segredo' }).click();
    await page.getByRole('heading', { name: 'Novo segredo' }).waitFor({ timeout: 10_000 });
    const first = await page.getByLabel('Novo segredo de assinatura').inputValue();
    expect(first).toMatch(/^whsec_/);
    expect(first).not.toBe(original);
    expect(await page.locator('[data-countdown]').first().textContent()).toMatch(/^(360:00|359:5\d)$/);
    expect(await axeViolations(page)).toEqual([]);
    const afterFirst = await subscriptionRow(subscription.id);
    expect(afterFirst.previous_secret_grace_until).toBe(new Date(rotatedAt.getTime() + 6 * 3_600_000).toISOString());
    // Coming back to where the rotation landed rotates nothing: the same secret is shown again.
    await page.goto(landed);
    expect(await page.content()).not.toContain(first);
    await page.getByRole('button', { name: 'Mostrar o novo segredo' }).click();
    await expect(page.getByLabel('Novo segredo de assinatura').inputValue()).resolves.toBe(first);
    expect((await subscriptionRow(subscription.id)).secret_sealed).toBe(afterFirst.secret_sealed);

    // A second rotation inside the grace, asking for 1 h: the original keeps signing until its 6 h end.
    platform.clock.advance(60_000);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`);
    await page.getByLabel('Segredo antigo assina por').selectOption('1');
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('button', { name: 'Mostrar o novo segredo' }).click();
    await page.getByRole('heading', { name: 'Novo segredo' }).waitFor({ timeout: 10_000 });
    const second = await page.getByLabel('Novo segredo de assinatura').inputValue();
    expect(second).not.toBe(first);
    const afterSecond = await subscriptionRow(subscription.id);
    expect(platform.app.platform.box.open(afterSecond.previous_secret_sealed as string)).toBe(original);
    expect(afterSecond.previous_secret_grace_until).toBe(afterFirst.previous_secret_grace_until);

    // Five hours in, the receiver still verifying with the original accepts a delivery (signed by the newest and the original).
    platform.clock.advance(5 * 3_600_000);
    let before = hooks.received.length;
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    await hooks.waitFor(before + 1);
    const during = hooks.received[before] as ReceivedRequest;
    expect(signedWith(during, original)).toBe(true);
    expect(signedWith(during, second)).toBe(true);
    expect(signedWith(during, first)).toBe(false);
    // Past the 6 h the original no longer signs: that receiver refuses, one on the newest secret accepts.
    platform.clock.advance(3_600_000);
    before = hooks.received.length;
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    await hooks.waitFor(before + 1);
    const afterGrace = hooks.received[before] as ReceivedRequest;
    expect(signedWith(afterGrace, original)).toBe(false);
    expect(signedWith(afterGrace, second)).toBe(true);
    await page.context().close();
  }, 180_000);

  it('"Desativar" asks first: cancel keeps it active, confirm disables with a notice; without JavaScript a confirmation page asks the same; "resend all failed" leaves out a disabled subscription and says so; en and pt-BR', async () => {
    receiverSecret = null;
    failing = true;
    const { seller, tenantId, subscriptions } = await storeWithApp();
    const id = (subscriptions[0] as { id: string }).id;
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    const page = await signIn(seller, 'pt-BR', PHONE);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await page.getByRole('button', { name: 'Desativar' }).click();
    const dialog = page.getByRole('dialog');
    const question = await page.locator('dialog h2').textContent({ timeout: 10_000 });
    expect(question).toBe('Desativar a assinatura de Atendimentos (SAC) (Acme Integrações)?');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    expect((await subscriptionRow(id)).state).toBe('active');
    await page.getByRole('button', { name: 'Desativar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Desativar' }).click();
    // The page before the answer has a status region of its own (the failing subscription's warning): wait for the notice.
    await page.getByRole('status').filter({ hasText: 'Assinatura desativada' }).waitFor({ timeout: 10_000 });
    expect((await subscriptionRow(id)).state).toBe('disabled');
    // Its pending delivery ends dead at its next attempt (W4); "resend all failed" leaves it out and says why.
    platform.clock.advance(3_600_000);
    await deliverAll(platform, tenantId);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    // Asked first (what it does, for which period), then done.
    await page.getByRole('button', { name: 'Reenviar todas com falha' }).click();
    await expect(page.locator('dialog h2').textContent()).resolves.toBe('Reenviar as entregas com falha deste período?');
    await page.getByRole('dialog').getByRole('button', { name: 'Reenviar todas com falha' }).click();
    const resent = page.getByRole('status').filter({ hasText: 'Nenhuma entrega com falha' });
    await resent.waitFor({ timeout: 10_000 });
    await expect(resent.textContent()).resolves.toBe(
      'Nenhuma entrega com falha desde então. 1 entrega com falha de uma assinatura desativada não foi reenviada: reative a assinatura antes.',
    );
    const dead = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('subscription_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(dead.state).toBe('dead');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Reativar' }).click();
    // The resend's notice is still on the page until the answer replaces it.
    await page.getByRole('status').filter({ hasText: 'Assinatura reativada' }).waitFor({ timeout: 10_000 });
    await page.context().close();

    // Without JavaScript: the button lands on a page asking the same question; its cancel link changes nothing.
    const plain = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      javaScriptEnabled: false,
      viewport: DESKTOP,
      timeout: 15_000,
    });
    await plain.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await plain.getByRole('button', { name: 'Disable' }).click();
    await plain
      .getByRole('heading', { name: 'Disable the Customer service tickets subscription (Acme Integrações)?' })
      .waitFor({ timeout: 10_000 });
    await plain.getByRole('link', { name: 'Cancel' }).click();
    expect((await subscriptionRow(id)).state).toBe('active');
    await plain.getByRole('button', { name: 'Disable' }).click();
    await plain.getByRole('button', { name: 'Disable' }).click();
    await plain.getByRole('status').waitFor({ timeout: 10_000 });
    expect((await subscriptionRow(id)).state).toBe('disabled');
    await plain.context().close();
  }, 180_000);

  it('an endpoint is added from the console for a connected app, refused in the page language for a missing topic or a private address; its topics become subscriptions; en at 375 px', async () => {
    receiverSecret = null;
    failing = false;
    const { seller, tenantId } = await storeWithApp(['sac_ticket']);
    const page = await signIn(seller, 'en-US', PHONE);
    await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks`);
    await page.getByRole('link', { name: 'Add an endpoint' }).click();
    await page.getByRole('heading', { name: 'Add an endpoint' }).waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('URL (HTTPS for v1)').fill('https://192.168.0.10/orders');
    await page.getByLabel('order').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('private or local network');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('URL (HTTPS for v1)').fill(`${hooks.url}/orders`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Orders subscription (Acme Integrações)' }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Endpoint added');
    const made = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .select(['topic', 'url', 'version'])
      .where('tenant_id', '=', tenantId)
      .where('topic', '=', 'order')
      .executeTakeFirstOrThrow();
    expect(made).toEqual({ topic: 'order', url: `${hooks.url}/orders`, version: 'v1' });
    // An order event now reaches it.
    const before = hooks.received.length;
    await recordChange(platform, { tenantId, topic: 'order' });
    await deliverAll(platform, tenantId);
    const ordersPath = `${new URL(hooks.url).pathname}/orders`;
    await pollUntil('the order event at the new endpoint', () =>
      hooks.received.slice(before).some((r) => r.path === ordersPath && JSON.parse(r.raw.toString()).topic === 'order')
        ? true
        : undefined,
    );
    await page.context().close();
  }, 120_000);
  it("spec-notes W1: a subscription's topic is edited on its page (contract topics, granted scopes, one subscription per app and topic); a real receiver then gets the new topic's events and not the old one's; pt-BR at 375 px and en at 1280 px, axe clean", async () => {
    receiverSecret = null;
    failing = false;
    const { seller, tenantId, app, token, subscriptions } = await storeWithApp(['sac_ticket'], '/topic-edit');
    const subscription = subscriptions[0] as { id: string };
    const pagePath = `${platform.url}/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`;
    const editPath = `${new URL(hooks.url).pathname}/topic-edit`;
    /** The topics of the events the receiver got at the edited endpoint since `from`. */
    const topicsSince = (from: number) =>
      hooks.received
        .slice(from)
        .filter((r) => r.path === editPath)
        .map((r) => JSON.parse(r.raw.toString()).topic as string);

    // pt-BR at 375 px: move it from tickets to orders.
    let page = await signIn(seller, 'pt-BR', PHONE);
    await page.goto(pagePath);
    await page.getByRole('heading', { name: 'Tópico', exact: true }).waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('input[name="topic"][value="order"]').check();
    await page.getByRole('button', { name: 'Salvar tópico' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('Tópico salvo');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('order');
    await expect(page.locator('input[name="topic"][value="order"]').isChecked()).resolves.toBe(true);
    expect((await subscriptionRow(subscription.id)).topic).toBe('order');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();

    // A ticket and an order happen: only the order reaches the endpoint, signed for this subscription.
    const before = hooks.received.length;
    await recordChange(platform, { tenantId, topic: 'sac_ticket' });
    await recordChange(platform, { tenantId, topic: 'order' });
    await deliverAll(platform, tenantId);
    await pollUntil('the order event at the edited endpoint', () => (topicsSince(before).length > 0 ? true : undefined));
    expect(topicsSince(before)).toEqual(['order']);

    // en at 1280 px: a topic whose scope the seller did not grant the app is refused, and so is a topic the app
    // already has a subscription for; the subscription keeps its topic.
    const other = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/other`, ['sac_ticket']);
    expect(other.statusCode).toBe(200);
    page = await signIn(seller, 'en-US', DESKTOP);
    await page.goto(pagePath);
    await page.locator('input[name="topic"][value="product"]').check();
    await page.getByRole('button', { name: 'Save topic' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain('was not granted access to: Products');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('input[name="topic"][value="sac_ticket"]').check();
    await page.getByRole('button', { name: 'Save topic' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'already has a subscription for: Customer service tickets',
    );
    expect((await subscriptionRow(subscription.id)).topic).toBe('order');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);
  it("a delivery page shows each attempt's response headers as the receiver sent them (its own header kept, its cookie left out); pt-BR at 375 px and en at 1280 px, axe clean", async () => {
    receiverSecret = null;
    failing = true;
    const { seller, tenantId } = await storeWithApp(['sac_ticket'], '/answer-headers');
    await recordChange(platform, { tenantId });
    await deliverAll(platform, tenantId);
    failing = false;
    platform.clock.advance(3_600_000);
    await deliverAll(platform, tenantId);
    const delivery = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'state'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(delivery.state).toBe('succeeded');
    for (const [locale, viewport] of [
      ['pt-BR', PHONE],
      ['en-US', DESKTOP],
    ] as const) {
      const pt = locale === 'pt-BR';
      const page = await signIn(seller, locale, viewport);
      await page.goto(`${platform.url}/console/stores/${tenantId}/webhooks/deliveries/${delivery.id}`);
      // Both attempts (the 500 and the 200) carry the receiver's header; the last one's details are open.
      const heading = page.getByRole('heading', {
        name: pt
          ? 'Cabeçalhos da resposta da tentativa 2 (credenciais omitidas)'
          : 'Response headers of attempt 2 (credentials left out)',
      });
      await heading.waitFor({ timeout: 10_000 });
      const shown = page.locator('#res-1 + pre');
      await expect(shown.textContent()).resolves.toContain('x-receiver-trace: trace-7f3a');
      await page.locator('details.attempt summary').first().click();
      await expect(page.locator('#res-0 + pre').textContent()).resolves.toContain('x-receiver-trace: trace-7f3a');
      const html = await page.content();
      expect(html).not.toContain('c00kie-value');
      expect(html).not.toContain('set-cookie');
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }
    // Stored as shown: the subset, never the cookie.
    const stored = await platform.database.db
      .selectFrom('webhook_delivery_attempts')
      .select('response_headers')
      .where('delivery_id', '=', delivery.id)
      .orderBy('seq')
      .execute();
    for (const row of stored) {
      expect(JSON.parse(row.response_headers ?? '{}')['x-receiver-trace']).toBe('trace-7f3a');
      expect(row.response_headers).not.toContain('c00kie');
    }
  }, 120_000);
});
