import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { createOrders, createProducts } from '../lists/list-fixtures.js';
import { uploadTable, vtexCsv } from '../shipping/freight-kit.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { axeViolations } from './axe.js';
import { platformInChromium, signInOn, signInOperatorOn, storeWithSubscribedApp } from './browser-kit.js';

/**
 * Every console page, found by following the console's own links from the
 * stores list and the operator's home (so a new page is covered by being
 * linked), rendered in pt-BR at 375 px and in English at 1280 px (D81):
 * - no text node of the pt-BR page is one the English page shows too,
 *   unless it is on the allow-list (brand names, units, the fixtures' own
 *   names) or inside `<code>`, `<pre>` or an element marked `lang="en"`;
 * - no text, label or title of the pt-BR page names a topic by its slug;
 * - axe finds no violation of any impact, at either width;
 * - at 375 px nothing scrolls sideways.
 */

/** Text the same in both languages by nature: brand and product names, units, codes and the fixtures' data. */
const SAME_IN_BOTH = [
  /^Feira( Console)?( · .*)?$/,
  /^(SKU|CEP|ID|URL|HTTP|HTTPS|JSON|CSV|API|OAuth|PKCE|v0|v1|p50|p99|ms|UTC|BRT|GMT[-+]\d+|Webhooks?|Login|E-mail|Total|OK|uPlot|Status)$/,
  /^(p50|p99)( \(ms\))?$/,
  /^https?:\/\//,
  // The fixtures' names (the seller's own data, shown as typed).
  /^(Maria Souza|Ateliê da Maria|Loja do Centro|Acme Integrações|Caneca .*|SEDEX|PAC|Sedex Sudeste|CD-SP|Ana Artesanato|Vendedor \d+)$/,
  /^[A-Z0-9-]+$/,
  // Identifiers (a delivery's id, its distinguishing tail), and figures with their unit.
  /^…?[0-9a-f-]{8,}$/,
  /^[\d.,]+ ms$/,
  // A word pt-BR uses as is.
  /^Endpoint$/,
  // The freight gateways' product names.
  /^(Melhor Envio|Frenet)$/,
  // The records fixtures' product titles (data, with %, _ and accents on purpose).
  /^(Camiseta|Mochila|Caneca|Caderno|Luminária|Tênis|Jaqueta|Garrafa|Vela|Chaveiro)[^a-z]?.* \d$/,
  /^America\/[A-Za-z_ ]+( \([A-Z0-9+-]+\))?$/,
];

/** The contract's topic slugs as words (an address or an id holding one is inside code). */
const TOPIC_SLUG = /(^|[^\w/.-])(order|product|sac_ticket|financial_transaction)($|[^\w/.-])/;

const SKIP_LINKS = /\/(assets|live|logout)\b|[?&]notice=|\/lang\?|format=|download/;

describe.each(testDatabaseTargets().slice(0, 1))('every console page in pt-BR on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  /** A seller with something on every page: records, a subscription with a delivery, an app, a freight table. */
  async function sellerWithEverything() {
    // A receiver that is not there: the delivery fails and has an attempt to show.
    const { seller, tenantId } = await storeWithSubscribedApp(platform, 'https://127.0.0.1:9/hooks', ['sac_ticket'], {
      tenants: 2,
      consented: ['open:order-order:read'],
    });
    const db = platform.database.db;
    await db.updateTable('sellers').set({ name: 'Maria Souza' }).where('id', '=', seller.sellerId).execute();
    await db.updateTable('tenants').set({ name: 'Ateliê da Maria' }).where('id', '=', tenantId).execute();
    await db
      .updateTable('tenants')
      .set({ name: 'Loja do Centro' })
      .where('id', '=', seller.tenantIds[1] as string)
      .execute();
    await createOrders(platform, tenantId, 3);
    await createProducts(platform, tenantId, 3);
    await uploadTable(platform, tenantId, 'SEDEX', vtexCsv(['01000000;39999999;SP;0;1000;12,90;0;0;;2;BRA;0']), {
      name: 'Sedex Sudeste',
    });
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    return seller;
  }

  async function context(locale: string, width: number): Promise<BrowserContext> {
    return browser.newContext({ locale, viewport: { width, height: 900 } });
  }

  function signIn(page: Page, seller: { login: string; password: string }) {
    return signInOn(page, platform.url, seller);
  }

  function signInOperator(page: Page) {
    return signInOperatorOn(page, platform.url);
  }

  /** The page's visible text nodes, outside code, preformatted text and anything marked English. */
  const textNodes = (page: Page) =>
    page.evaluate(() => {
      const out: string[] = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
        const parent = node.parentElement;
        if (!text || !parent || !/[A-Za-zÀ-ú]{2}/.test(text)) continue;
        if (parent.closest('code, pre, script, style, [hidden], template')) continue;
        // A part marked as another language than the page's (the language switch, a server's own words).
        if (parent.closest('[lang]')?.getAttribute('lang') !== document.documentElement.lang) continue;
        out.push(text);
      }
      for (const element of document.querySelectorAll('[aria-label], [title], input[placeholder]')) {
        for (const name of ['aria-label', 'title', 'placeholder']) {
          const value = element.getAttribute(name);
          if (
            value &&
            /[A-Za-zÀ-ú]{2}/.test(value) &&
            element.closest('[lang]')?.getAttribute('lang') === document.documentElement.lang
          )
            out.push(value.trim());
        }
      }
      out.push(document.title);
      return out;
    });

  /** Console links of a page, as paths. */
  const linksOf = (page: Page) =>
    page.evaluate(() => [...document.querySelectorAll('a[href^="/console"]')].map((a) => a.getAttribute('href') as string));

  /** One page per shape: ids become `:id`, query values are dropped. */
  const shapeOf = (href: string) => {
    const url = new URL(href, 'http://x');
    const path = url.pathname
      .split('/')
      .map((part) => (/^[0-9a-f-]{16,}$|^\d+$/.test(part) ? ':id' : part))
      .join('/');
    return `${path}?${[...url.searchParams.keys()].sort().join('&')}`;
  };

  async function crawl(start: string[], signInWith: (page: Page) => Promise<void>, extra: string[]) {
    const pt = await context('pt-BR', 375);
    const en = await context('en-US', 1280);
    const ptPage = await pt.newPage();
    const enPage = await en.newPage();
    await signInWith(ptPage);
    await signInWith(enPage);
    const queue = [...start, ...extra];
    const seen = new Set<string>();
    const problems: string[] = [];
    while (queue.length > 0 && seen.size < 40) {
      const href = queue.shift() as string;
      if (SKIP_LINKS.test(href) || seen.has(shapeOf(href))) continue;
      seen.add(shapeOf(href));
      await ptPage.goto(`${platform.url}${href}`);
      await enPage.goto(`${platform.url}${href}`);
      const english = new Set(await textNodes(enPage));
      const leaks = [...new Set(await textNodes(ptPage))].filter(
        (text) => english.has(text) && !SAME_IN_BOTH.some((allowed) => allowed.test(text)),
      );
      if (leaks.length > 0) problems.push(`${href}: English in pt-BR: ${JSON.stringify(leaks)}`);
      // A topic's slug is English too: outside code, a pt-BR page names a topic by its label (D144).
      const slugs = [...new Set(await textNodes(ptPage))].filter((text) => TOPIC_SLUG.test(text));
      if (slugs.length > 0) problems.push(`${href}: topic slug in pt-BR text: ${JSON.stringify(slugs)}`);
      for (const [page, width] of [
        [ptPage, 375],
        [enPage, 1280],
      ] as const) {
        const violations = await axeViolations(page);
        if (violations.length > 0)
          problems.push(
            `${href} at ${width} px: axe ${JSON.stringify(violations.map((v) => [v.id, v.impact, v.nodes.slice(0, 2)]))}`,
          );
      }
      const sideways = await ptPage.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      if (sideways) problems.push(`${href} at 375 px scrolls sideways`);
      for (const link of await linksOf(ptPage)) if (!seen.has(shapeOf(link))) queue.push(link);
    }
    await pt.close();
    await en.close();
    return { seen: [...seen], problems };
  }

  it('D81: every seller page is in Portuguese, axe finds nothing at 375 and 1280 px, nothing scrolls sideways', async () => {
    const seller = await sellerWithEverything();
    const { seen, problems } = await crawl(['/console'], (page) => signIn(page, seller), [
      '/console/time-zone?back=/console',
      '/console/no-such-page',
    ]);
    expect(seen.length).toBeGreaterThanOrEqual(12);
    expect(problems.join('\n')).toBe('');
  }, 300_000);

  it('D81: every operator page is in Portuguese, axe finds nothing at 375 and 1280 px', async () => {
    // A search's answer (stores found, D157) is a page of its own; its links lead to a store's webhooks and deliveries.
    const { seen, problems } = await crawl(['/console/operator'], signInOperator, ['/console/operator?q=Ateli']);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(problems.join('\n')).toBe('');
  }, 300_000);
});
