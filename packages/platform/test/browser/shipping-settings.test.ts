import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { admin, putSettings } from '../shipping/shipping-kit.js';
import { seriousAxeViolations } from './axe.js';
import { platformInChromium, signInToConsole } from './browser-kit.js';

/**
 * The console's shipping settings (D147): every setting the admin API takes,
 * each in its own CSRF-protected form, saved through the API's own schema and
 * rules, refusals said in the page's language beside the form, the gateway
 * credential write-only; and a freight table no method reads says so and
 * offers to turn the method on.
 */
describe.each(testDatabaseTargets())('shipping settings in the console on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  const stored = async (tenantId: string) => {
    const response = await platform.app.inject({ url: `/admin/v1/tenants/${tenantId}/shipping`, headers: admin });
    return response.statusCode === 200 ? (response.json() as Record<string, unknown>) : null;
  };
  const section = (page: Page, heading: string) =>
    page.locator('section.settings-part').filter({ has: page.getByRole('heading', { name: heading, exact: true }) });
  const alertOf = (page: Page, heading: string) => section(page, heading).getByRole('alert');

  it('spec-notes Q1, Q8, W9: a seller sets the quote URL (the SSRF guard refuses a link-local one, in pt-BR), orders the methods, sets centres, backup rates and a gateway whose credential is never shown; axe finds nothing serious at 1280 and 375 px, light and dark', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 1280, height: 900 },
    });
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    await page.getByRole('link', { name: 'Editar as configurações de frete' }).click();
    await page.getByRole('heading', { name: 'Configurações de frete de Store 1', level: 1 }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The cloud metadata address: the API's own URL check refuses it, said in Portuguese beside the form.
    const endpoint = section(page, 'O seu endpoint de cotação');
    await endpoint.getByLabel('URL da API do vendedor').fill('http://169.254.169.254/latest/meta-data');
    await endpoint.getByRole('button', { name: 'Salvar o endereço' }).click();
    await expect(alertOf(page, 'O seu endpoint de cotação').textContent()).resolves.toBe(
      'URL da API do vendedor: aponta para um endereço privado, local ou reservado, que a plataforma nunca chama',
    );
    // What the seller typed is kept for correcting; nothing was stored.
    await expect(endpoint.getByLabel('URL da API do vendedor').inputValue()).resolves.toContain('169.254.169.254');
    expect(await stored(tenantId)).toBeNull();
    expect(await seriousAxeViolations(page)).toEqual([]);

    await endpoint.getByLabel('URL da API do vendedor').fill('http://127.0.0.1:9/quote?token=abc');
    await endpoint.getByRole('button', { name: 'Salvar o endereço' }).click();
    await section(page, 'O seu endpoint de cotação').getByRole('status').waitFor({ timeout: 10_000 });
    expect(await stored(tenantId)).toEqual({
      method: 'seller_api',
      url: 'http://127.0.0.1:9/quote?token=abc',
      distribution_centers: [],
    });
    // The URL's query may hold the seller's token: shown without it.
    await expect(page.content()).resolves.not.toContain('token=abc');

    // The marketplace's delivery service first, the seller API second.
    const methods = section(page, 'Métodos de cotação');
    await methods.getByLabel('Serviço de entrega do marketplace', { exact: true }).check();
    await methods.getByLabel('Ordem de Serviço de entrega do marketplace').fill('1');
    await methods.getByLabel('Ordem de API do vendedor (seu endpoint)').fill('2');
    await methods.getByRole('button', { name: 'Salvar os métodos' }).click();
    await section(page, 'Métodos de cotação').getByRole('status').waitFor({ timeout: 10_000 });
    await expect(stored(tenantId)).resolves.toMatchObject({ methods: ['marketplace_delivery', 'seller_api'] });

    // Centres: a repeated id is the API's refusal; then two centres, one with its CEP.
    const centres = section(page, 'Centros de distribuição');
    await centres.getByLabel('Identificador do centro 1').fill('CD-SP');
    await centres.getByLabel('Identificador do centro 2').fill('CD-SP');
    await centres.getByRole('button', { name: 'Salvar os centros' }).click();
    await expect(alertOf(page, 'Centros de distribuição').textContent()).resolves.toBe(
      'Identificador do centro 2: aparece duas vezes',
    );
    await section(page, 'Centros de distribuição').getByLabel('Identificador do centro 2').fill('CD-RJ');
    await section(page, 'Centros de distribuição').getByLabel('CEP do centro 1').fill('01310100');
    await section(page, 'Centros de distribuição').getByRole('button', { name: 'Salvar os centros' }).click();
    await section(page, 'Centros de distribuição').getByRole('status').waitFor({ timeout: 10_000 });
    await expect(stored(tenantId)).resolves.toMatchObject({
      distribution_centers: [{ id: 'CD-SP', zipcode: '01310100' }, { id: 'CD-RJ' }],
    });

    // Backup rates for the seller API.
    await section(page, 'Contingência').getByLabel('Usar as tabelas de frete como contingência').check();
    await section(page, 'Contingência').getByRole('button', { name: 'Salvar a contingência' }).click();
    await section(page, 'Contingência').getByRole('status').waitFor({ timeout: 10_000 });
    await expect(stored(tenantId)).resolves.toMatchObject({ fallback: 'freight_table' });
    // The tables as a method besides as backup rates: the API refuses it, and the methods form says why.
    await section(page, 'Métodos de cotação').getByLabel('Tabelas de frete', { exact: true }).check();
    await section(page, 'Métodos de cotação').getByRole('button', { name: 'Salvar os métodos' }).click();
    await expect(alertOf(page, 'Métodos de cotação').textContent()).resolves.toBe(
      'Contingência: as tabelas de frete já são um dos métodos e sempre respondem: desligue a contingência antes',
    );

    // A gateway: the credential is required the first time, then write-only.
    const gateway = () => section(page, 'Gateway de frete');
    await gateway().getByLabel('Tipo de gateway', { exact: true }).selectOption('melhor_envio');
    await gateway().getByRole('button', { name: 'Salvar o gateway' }).click();
    await expect(alertOf(page, 'Gateway de frete').textContent()).resolves.toBe(
      'Credencial (token): é obrigatória na primeira vez que este gateway é configurado',
    );
    await gateway().getByLabel('Tipo de gateway', { exact: true }).selectOption('melhor_envio');
    await gateway().getByLabel('Credencial (token)').fill('me-secret-token-123');
    await gateway().getByRole('button', { name: 'Salvar o gateway' }).click();
    await gateway().getByRole('status').waitFor({ timeout: 10_000 });
    await expect(stored(tenantId)).resolves.toMatchObject({
      methods: ['marketplace_delivery', 'seller_api', 'gateway'],
      gateway: { kind: 'melhor_envio' },
    });
    await expect(gateway().getByLabel('Credencial (token)').inputValue()).resolves.toBe('');
    await expect(page.content()).resolves.not.toContain('me-secret-token-123');
    const sealed = async () =>
      (
        await platform.database.db
          .selectFrom('shipping_settings')
          .select('gateway_credential')
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).gateway_credential;
    const before = await sealed();
    // Saving again with the field empty keeps the stored credential.
    await gateway().getByRole('button', { name: 'Salvar o gateway' }).click();
    await gateway().getByRole('status').waitFor({ timeout: 10_000 });
    expect(await sealed()).toBe(before);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Turning the seller API off drops its URL and, with the gateway still on, keeps the backup rates valid.
    await section(page, 'Métodos de cotação').getByLabel('API do vendedor (seu endpoint)', { exact: true }).uncheck();
    await section(page, 'Métodos de cotação').getByRole('button', { name: 'Salvar os métodos' }).click();
    await section(page, 'Métodos de cotação').getByRole('status').waitFor({ timeout: 10_000 });
    const after = await stored(tenantId);
    expect(after).toMatchObject({ methods: ['marketplace_delivery', 'gateway'], fallback: 'freight_table' });
    expect(after).not.toHaveProperty('url');
    await page.context().close();

    // 375 px, dark, English: the same page, axe-clean.
    const narrow = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      viewport: { width: 375, height: 812 },
      colorScheme: 'dark',
    });
    await narrow.goto(`${platform.url}/console/stores/${tenantId}/shipping/settings`);
    await narrow.getByRole('heading', { name: 'Shipping settings of Store 1', level: 1 }).waitFor({ timeout: 10_000 });
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(narrow)).toEqual([]);
    await narrow.context().close();
  }, 300_000);

  it("a freight table no method reads says so and turns the method on; a form without the CSRF token changes nothing; another seller's store is a 404", async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await putSettings(platform, tenantId, { method: 'seller_api', url: 'http://127.0.0.1:9/quote' });
    const upload = await platform.app.inject({
      method: 'PUT',
      url: `/admin/v1/tenants/${tenantId}/shipping/freight-tables/PAC?name=PAC`,
      headers: { ...admin, 'content-type': 'text/csv' },
      payload:
        'ZipCodeStart;ZipCodeEnd;PolygonName;WeightStart;WeightEnd;AbsoluteMoneyCost;PricePercent;PriceByExtraWeight;MaxVolume;TimeCost;Country;MinimumValueInsurance\r\n01000000;39999999;SP;0;1000;12,50;0;0;;2;BRA;0\r\n',
    });
    expect(upload.statusCode).toBe(201);

    const page = await signInToConsole(browser, platform.url, seller, 'en-US');
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    await page.getByText('No quote method uses these tables yet').waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Use the freight tables in quotes' }).click();
    await page.getByText('Quotes now use your freight tables').waitFor({ timeout: 10_000 });
    await page.getByText('Quotes use these tables (the Freight tables method is on).').waitFor();
    await expect(stored(tenantId)).resolves.toMatchObject({ methods: ['seller_api', 'freight_table'] });

    // No CSRF token: back to the page with the expired notice, nothing changed.
    const forged = await page.context().request.post(`${platform.url}/console/stores/${tenantId}/shipping/settings/methods`, {
      form: { method: 'freight_table' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(303);
    expect(forged.headers().location).toContain('notice=expired');
    await expect(stored(tenantId)).resolves.toMatchObject({ methods: ['seller_api', 'freight_table'] });

    const other = await platform.createSeller({ tenants: 1 });
    const foreign = await page.goto(`${platform.url}/console/stores/${other.tenantIds[0]}/shipping/settings`);
    expect(foreign?.status()).toBe(404);
    await page.context().close();
  }, 300_000);
});
