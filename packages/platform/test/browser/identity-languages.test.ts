import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUrl } from '../../src/identity/test-support/page-client.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { seriousAxeViolations } from './axe.js';
import { platformInChromium } from './browser-kit.js';

/**
 * Language: the login, store choice and consent pages and the
 * consent button in Brazilian Portuguese and English, in a real Chromium,
 * with axe-core on every page in both languages.
 */
describe.each(testDatabaseTargets())('identity pages in both languages on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let site: Server;
  let siteUrl: string;
  let clientId = '';

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });
  beforeAll(async () => {
    site = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const lang = url.searchParams.get('lang') ?? 'en';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (url.pathname === '/inaccessible') {
        res.end('<!doctype html><html><head><title>x</title></head><body><img src="/x.png"><input type="text"></body></html>');
        return;
      }
      res.end(`<!doctype html><html lang="${lang}"><head><title>Loja</title></head><body>
<div id="button" class="feira-consent-content" client-id="${clientId}" redirect-uri="http://${req.headers.host}/callback"></div>
<div id="broken" class="feira-consent-content" redirect-uri="http://${req.headers.host}/callback"></div>
<script type="module" src="${platform.url}/consent.js"></script></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    site?.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  async function setup() {
    const seller = await platform.createSeller({ tenants: 2 });
    const client = await platform.createClient({
      name: 'Acme Integrações',
      redirectUris: [`${siteUrl}/callback`],
      scopes: ['open:portfolio:read', 'open:order-order:read'],
      defaultScopes: ['open:portfolio:read'],
      termsOfUseUrl: 'https://acme.example/terms',
      privacyPolicyUrl: 'https://acme.example/privacy',
    });
    clientId = client.clientId;
    return {
      seller,
      url: loginUrl(platform.url, { clientId: client.clientId, redirectUri: `${siteUrl}/callback`, state: 'st1' }),
    };
  }

  it('a browser asking for pt-BR signs in, chooses stores and consents in Portuguese; every page passes axe', async () => {
    const { seller, url } = await setup();
    const context = await browser.newContext({ locale: 'pt-BR' });
    const page = await context.newPage();
    await page.goto(url);
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    await expect(page.getByRole('heading', { name: 'Entrar na Feira' }).count()).resolves.toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Senha').fill('wrong password');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Login ou senha incorretos.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Senha').fill(seller.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(page.getByRole('heading', { name: 'Escolha suas lojas' }).count()).resolves.toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Store 1').check();
    await page.getByRole('button', { name: 'Continuar' }).click();
    await expect(page.getByRole('heading', { name: 'Autorizar Acme Integrações a acessar seus dados?' }).count()).resolves.toBe(
      1,
    );
    expect(await page.getByText('Ver seus produtos (portfólio)').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'termos de uso' }).count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Autorizar' }).click();
    await page.waitForURL(`${siteUrl}/callback?**`);
    await context.close();
  });

  it('the visible switch changes a Portuguese page to English and the choice is remembered', async () => {
    const { url } = await setup();
    const context = await browser.newContext({ locale: 'pt-BR' });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('navigation', { name: 'Idioma' }).getByRole('link', { name: 'English' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in to Feira' }).count()).resolves.toBe(1);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    // The authorization request survived the switch: the form still carries it.
    expect(await page.locator('input[name=state]').getAttribute('value')).toBe('st1');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.goto(url);
    await expect(page.getByRole('heading', { name: 'Sign in to Feira' }).count()).resolves.toBe(1);
    const cookie = (await context.cookies()).find((c) => c.name === 'feira_lang');
    expect(cookie?.value).toBe('en');
    expect(cookie?.httpOnly).toBe(true);
    await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'Português' }).click();
    await expect(page.getByRole('heading', { name: 'Entrar na Feira' }).count()).resolves.toBe(1);
    await context.close();
  });

  it('an error page in English for an English browser, in Portuguese for pt', async () => {
    for (const [locale, heading] of [
      ['en-US', 'This sign-in link cannot be used'],
      ['pt', 'Este link de acesso não pode ser usado'],
    ] as const) {
      const context = await browser.newContext({ locale });
      const page = await context.newPage();
      const response = await page.goto(`${platform.url}/login?client_id=nobody&redirect_uri=https%3A%2F%2Fx.example%2F`);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole('heading', { name: heading }).count()).resolves.toBe(1);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await context.close();
    }
  });

  it('spec-notes I12: the consent button speaks the host page language', async () => {
    await setup();
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/?lang=pt-BR`);
    await expect(page.locator('#button button').textContent()).resolves.toBe('Conectar com a Feira');
    await expect(page.locator('#broken [role=alert]').textContent()).resolves.toBe(
      'Botão de consentimento da Feira: o atributo client-id é obrigatório',
    );
    await page.goto(`${siteUrl}/?lang=en`);
    await expect(page.locator('#button button').textContent()).resolves.toBe('Connect with Feira');
    await context.close();
  });

  it('the axe check finds serious issues where they exist, so a clean result on the pages means something', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteUrl}/inaccessible`);
    const ids = (await seriousAxeViolations(page)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['image-alt', 'label', 'html-has-lang']));
    await context.close();
  });

  it('the language switch never sends the browser to another site', async () => {
    for (const back of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const res = await fetch(`${platform.url}/lang?to=pt-BR&back=${encodeURIComponent(back)}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/');
    }
  });
});
