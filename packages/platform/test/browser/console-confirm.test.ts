import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { createOrders } from '../lists/list-fixtures.js';
import { uploadTable, vtexCsv } from '../shipping/freight-kit.js';
import { axeViolations } from './axe.js';
import { connectedApp, platformInChromium, signInOperator, signInToConsole } from './browser-kit.js';

/**
 * Destructive actions ask first (D69), in a `<dialog>` the console module
 * builds (no inline script under the CSP) or, without JavaScript, on a
 * confirmation page; cancel keeps, confirm acts and says so. And every time
 * is in the seller's zone (D67), the same in the health table and its chart.
 * In both languages, at 375 and 1280 px, with axe finding nothing of any impact.
 */
const VIEWS = [
  {
    locale: 'en-US',
    width: 1280,
    words: { del: 'Delete', confirmApp: 'Delete app', disconnect: 'Disconnect', table: 'Delete table', cancel: 'Cancel' },
  },
  {
    locale: 'pt-BR',
    width: 375,
    words: {
      del: 'Excluir',
      confirmApp: 'Excluir aplicativo',
      disconnect: 'Desconectar',
      table: 'Excluir tabela',
      cancel: 'Cancelar',
    },
  },
  {
    locale: 'pt-BR',
    width: 1280,
    words: {
      del: 'Excluir',
      confirmApp: 'Excluir aplicativo',
      disconnect: 'Desconectar',
      table: 'Excluir tabela',
      cancel: 'Cancelar',
    },
  },
  {
    locale: 'en-US',
    width: 375,
    words: { del: 'Delete', confirmApp: 'Delete app', disconnect: 'Disconnect', table: 'Delete table', cancel: 'Cancel' },
  },
] as const;

describe.each(testDatabaseTargets().slice(0, 1))('console confirmations and time in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  function operatorPage(locale: string, width: number, javaScriptEnabled = true): Promise<Page> {
    return signInOperator(browser, platform.url, {
      locale,
      viewport: { width, height: 900 },
      javaScriptEnabled,
      timezoneId: 'Asia/Tokyo',
    });
  }

  function sellerPage(seller: { login: string; password: string }, locale: string, width: number): Promise<Page> {
    return signInToConsole(browser, platform.url, seller, { locale, viewport: { width, height: 900 } });
  }

  /** No part of the page scrolls sideways: state and actions stay on screen. */
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  for (const view of VIEWS) {
    it(`D69: ${view.locale} at ${view.width} px: "${view.words.del}" an app, cancel keeps it, confirm deletes it with a notice; axe finds nothing`, async () => {
      const name = `Apagável ${view.locale} ${view.width}`;
      const app = await platform.createClient({ name });
      const page = await operatorPage(view.locale, view.width);
      const button = page.getByRole('button', { name: `${view.words.del} ${name}`, exact: true });
      await button.click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor({ timeout: 10_000 });
      await expect(dialog.getByRole('heading').textContent()).resolves.toContain(name);
      expect(await axeViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: view.words.cancel }).click();
      await dialog.waitFor({ state: 'detached', timeout: 10_000 });
      await expect(page.getByText(app.clientId, { exact: true }).count()).resolves.toBe(1);
      expect(await fitsWidth(page)).toBe(true);

      await button.click();
      await page.getByRole('dialog').getByRole('button', { name: view.words.confirmApp }).click();
      await page.getByRole('status').waitFor({ timeout: 10_000 });
      await expect(page.getByRole('status').textContent()).resolves.toContain(name);
      await expect(page.getByText(app.clientId, { exact: true }).count()).resolves.toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      await page.context().close();
    }, 60_000);
  }

  it('D69: a seller cancels then confirms "Desconectar" and "Excluir" a freight table, at 375 px in pt-BR', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await connectedApp(platform, seller, { consented: ['open:order-order:read'] });
    await uploadTable(platform, tenantId, 'SEDEX', vtexCsv(['01000000;39999999;SP;0;1000;12,90;0;0;;2;BRA;0']));
    const page = await sellerPage(seller, 'pt-BR', 375);

    await page.goto(`${platform.url}/console/stores/${tenantId}/apps`);
    const disconnect = page.getByRole('button', { name: 'Desconectar Acme Integrações' });
    await disconnect.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await expect(page.getByText('Acme Integrações', { exact: true }).count()).resolves.toBe(1);
    await disconnect.click();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Desconectar', exact: true }).click();
    await page.getByText('Nenhum aplicativo está conectado a esta loja.').waitFor({ timeout: 10_000 });

    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    const remove = page.getByRole('button', { name: 'Excluir SEDEX' });
    await remove.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await expect(remove.count()).resolves.toBe(1);
    await remove.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir tabela' }).click();
    await page.getByText('Tabela de frete excluída.').waitFor({ timeout: 10_000 });
    await expect(page.getByText('Nenhuma tabela de frete ainda.').count()).resolves.toBe(1);
    expect(await fitsWidth(page)).toBe(true);
    await page.context().close();
  }, 90_000);

  it('D69: without JavaScript the same buttons lead to a confirmation page; "Cancelar" keeps, the confirm deletes', async () => {
    const app = await platform.createClient({ name: 'Sem Script' });
    const page = await operatorPage('pt-BR', 375, false);
    await page.getByRole('button', { name: 'Excluir Sem Script', exact: true }).click();
    await page.getByRole('heading', { name: 'Excluir o aplicativo Sem Script?' }).waitFor({ timeout: 10_000 });
    await page.getByRole('link', { name: 'Cancelar' }).click();
    await page.getByRole('heading', { name: 'Vendedores e aplicativos' }).waitFor({ timeout: 10_000 });
    await expect(page.getByText(app.clientId, { exact: true }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Excluir Sem Script', exact: true }).click();
    await page.getByRole('button', { name: 'Excluir aplicativo' }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    await expect(page.getByText(app.clientId, { exact: true }).count()).resolves.toBe(0);
    await page.context().close();
  }, 60_000);

  it('D67: a time in America/Sao_Paulo is the same in the health table and its chart, with the browser in Tokyo', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    // Work waiting this minute: the chart and the table both have a point for it.
    await createOrders(platform, seller.tenantIds[0] as string, 2);
    for (const view of [VIEWS[1], VIEWS[0]]) {
      const page = await operatorPage(view.locale, view.width);
      await page.goto(`${platform.url}/console/operator/health`);
      await page.locator('#health-chart .uplot').first().waitFor({ timeout: 10_000 });
      const cell = page.locator('#health-chart ~ details time, details time').first();
      const instant = (await cell.getAttribute('datetime')) as string;
      const shown = ((await cell.textContent()) as string).trim();
      // The chart's legend at that instant, through the charts the module drew.
      const legend = await page.evaluate((iso) => {
        const host = document.getElementById('health-chart') as HTMLElement & {
          charts: Array<{
            valToPos(v: number, s: string): number;
            setCursor(c: { left: number; top: number }): void;
            root: HTMLElement;
          }>;
        };
        const chart = host.charts[0];
        if (!chart) return null;
        chart.setCursor({ left: chart.valToPos(Date.parse(iso) / 1000, 'x'), top: 10 });
        return chart.root.querySelector('.u-legend .u-series .u-value')?.textContent ?? null;
      }, instant);
      const zoned = new Intl.DateTimeFormat(view.locale, {
        timeZone: 'America/Sao_Paulo',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(instant));
      expect(shown).toContain(zoned);
      expect(shown).toMatch(/BRT|GMT-3/);
      expect(legend).not.toBeNull();
      expect(shown.startsWith(legend as string)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }
  }, 90_000);
});
