import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../../src/i18n/i18n.js';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';
import { createOrders, createProducts } from '../lists/list-fixtures.js';
import { ConsoleSession, operatorSession, sellerSession } from './console-session.js';

/**
 * How the console is delivered (D68): assets minified, compressed and cached
 * for good under hashed URLs; pages compressed; a console-styled 404 and a
 * favicon; sign-in that comes back to the page asked for; the seller's time
 * zone (D67); records and operator lists that page both ways and search; and
 * actions that ask first without JavaScript (D69).
 */
describe('console delivery', () => {
  let platform: TestPlatform;
  let seller: Awaited<ReturnType<TestPlatform['createSeller']>>;
  let session: ConsoleSession;

  beforeAll(async () => {
    platform = await createTestPlatform();
    seller = await platform.createSeller({ tenants: 2 });
    session = await sellerSession(platform.app, seller);
  });
  afterAll(() => platform.close());

  const modulesOf = (html: string) => [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1] as string);
  const stylesOf = (html: string) => [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1] as string);

  it('D68: pages link each asset by a content-hashed URL served immutable for a year, the plain URL for five minutes', async () => {
    const page = await session.get(`/console/stores/${seller.tenantIds[0]}/records/orders`);
    const assets = [...modulesOf(page.body), ...stylesOf(page.body)];
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const url of assets) {
      expect(url).toMatch(/^\/console\/assets\/[a-z.]+\.[0-9a-f]{10}\.(js|css)$/);
      const hashed = await platform.app.inject({ method: 'GET', url });
      expect(hashed.statusCode).toBe(200);
      expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const plain = await platform.app.inject({ method: 'GET', url: url.replace(/\.[0-9a-f]{10}\./, '.') });
      expect(plain.headers['cache-control']).toBe('public, max-age=300');
      expect(plain.body).toBe(hashed.body);
    }
  });

  it('D68: an asset comes brotli, gzip or plain as the browser accepts, the same bytes once decoded', async () => {
    const url = '/console/assets/console.js';
    const plain = await platform.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await platform.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('accept-encoding');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gzip = await platform.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip;q=1, br;q=0' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length);
  });

  it('D68: uPlot is the minified build, and each chart module imports the others by their hashed names', async () => {
    const uplot = await platform.app.inject({ method: 'GET', url: '/console/assets/uplot.esm.js' });
    expect(uplot.statusCode).toBe(200);
    expect(uplot.body).toContain('export default uPlot');
    expect(uplot.rawPayload.length).toBeLessThan(60_000);
    const charts = await platform.app.inject({ method: 'GET', url: '/console/assets/charts.js' });
    const imported = /from '\.\/(uplot\.[0-9a-f]{10}\.esm\.js|uplot\.esm\.[0-9a-f]{10}\.js)'/.exec(charts.body)?.[1];
    expect(imported).toBeDefined();
    const target = await platform.app.inject({ method: 'GET', url: `/console/assets/${imported}` });
    expect(target.body).toBe(uplot.body);
  });

  it('D68: a console page comes compressed when the browser accepts it', async () => {
    const page = await session.get('/console', { 'accept-encoding': 'br' });
    expect(page.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(page.rawPayload).toString()).toContain('<html lang=');
  });

  it('D68: an unknown console address answers the console-styled 404 page, not JSON, signed in or not', async () => {
    for (const who of [session, new ConsoleSession(platform.app)]) {
      const page = await who.get('/console/no-such-page/here?x=1');
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<h1>Not found</h1>');
      expect(page.body).toContain('/console/no-such-page/here');
      expect(page.body).toContain('href="/console"');
    }
    // Outside the console, the API's JSON 404 stays.
    const api = await platform.app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(api.headers['content-type']).toMatch(/json/);
  });

  it('D68: every page names the favicon, which the platform serves', async () => {
    const page = await session.get('/console');
    expect(page.body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    const icon = await platform.app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((await platform.app.inject({ method: 'GET', url: '/favicon.ico' })).statusCode).toBe(200);
  });

  it('D68: signing in comes back to the console page asked for; another host or a non-console path is never followed', async () => {
    const wanted = `/console/stores/${seller.tenantIds[1]}/records/products?_limit=50`;
    const visitor = new ConsoleSession(platform.app);
    const login = await visitor.get(wanted);
    expect(login.statusCode).toBe(401);
    expect(login.body).toContain(`name="next" value="${wanted.replace(/&/g, '&#38;')}"`);
    const back = await visitor.post('/console/login', { login: seller.login, password: seller.password, next: wanted });
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe(wanted);
    for (const next of [
      '//evil.example/console',
      'https://evil.example/',
      '/console/..//evil',
      '/\\evil.example',
      '/lang?to=en',
    ]) {
      const other = new ConsoleSession(platform.app);
      await other.get('/console');
      const answer = await other.post('/console/login', { login: seller.login, password: seller.password, next });
      expect(answer.headers.location, next).toBe('/console');
    }
  });

  it('D67: times show in America/Sao_Paulo by default, labelled; a chosen zone applies to every later page', async () => {
    const me = await sellerSession(platform.app, seller, { 'accept-language': 'pt-BR' });
    const home = await me.get('/console');
    expect(home.body).toContain('data-time-zone="America/Sao_Paulo"');
    expect(home.body).toContain('Horários em America/Sao Paulo (BRT)');
    await createOrders(platform, seller.tenantIds[0] as string, 1);
    // The test clock's instant, shown three hours behind UTC and labelled.
    const created = new Date(platform.clock.now());
    const expected = new Intl.DateTimeFormat('pt-BR', {
      timeZone: 'America/Sao_Paulo',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(created);
    const orders = await me.get(`/console/stores/${seller.tenantIds[0]}/records/orders`);
    expect(orders.body).toMatch(new RegExp(`<time datetime="[^"]+">[^<]*${expected}:\\d\\d BRT</time>`));
    const choose = await me.get('/console/time-zone?back=/console');
    expect(choose.statusCode).toBe(200);
    const saved = await me.post('/console/time-zone', {
      zone: 'America/Manaus',
      back: `/console/stores/${seller.tenantIds[0]}/records/orders`,
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/console/stores/${seller.tenantIds[0]}/records/orders?notice=zoneSaved`);
    const after = await me.get(saved.headers.location as string);
    expect(after.body).toContain('data-time-zone="America/Manaus"');
    expect(after.body).toContain('Os horários agora aparecem em America/Manaus');
    // A zone the runtime does not know changes nothing.
    await me.post('/console/time-zone', { zone: 'Mars/Olympus_Mons', back: '/console' });
    expect((await me.get('/console')).body).toContain('data-time-zone="America/Manaus"');
  });

  it('D69: a form sent after its CSRF token expired changes nothing and says so', async () => {
    const me = await sellerSession(platform.app, seller, { 'accept-language': 'en' });
    me.csrf = 'expired-token';
    const answer = await me.post('/console/time-zone', { zone: 'UTC', back: '/console' });
    expect(answer.headers.location).toBe('/console?notice=expired');
    const page = await me.get(answer.headers.location as string);
    expect(page.body).toContain('The form expired before it was sent: nothing was changed.');
    expect(page.body).not.toContain('data-time-zone="UTC"');
    // The operator's forms say it too.
    const operator = await operatorSession(platform.app);
    operator.csrf = 'expired-token';
    const refused = await operator.post('/console/operator/sellers', {
      name: 'X',
      login: 'x@feira.test',
      password: 'long enough',
      store: 'Y',
    });
    expect(refused.headers.location).toBe('/console/operator?notice=expired');
    expect((await operator.get(refused.headers.location as string)).body).toContain('The form expired before it was sent');
  });

  it('D68: records page forward and back (first, previous, next) and the sort box shows the sort the list is in', async () => {
    const tenantId = seller.tenantIds[1] as string;
    await createProducts(platform, tenantId, 45);
    const base = `/console/stores/${tenantId}/records/products`;
    const first = await session.get(`${base}?_limit=20`);
    expect(first.statusCode).toBe(200);
    // Products list in created_at ascending by default: the box says so, not "sku desc".
    expect(first.body).toMatch(/<option value="created_at:asc" selected>/);
    const link = (html: string, rel: string) =>
      new RegExp(`<a href="([^"]+)"${rel ? ` rel="${rel}"` : ''}>`).exec(html)?.[1]?.replace(/&#38;/g, '&');
    const idsOf = (html: string) => [...html.matchAll(/<td data-label="ID"><code>([^<]+)<\/code>/g)].map((m) => m[1]);
    expect(first.body).not.toContain('rel="prev"');
    const next = link(first.body, 'next');
    expect(next).toBeDefined();
    const second = await session.get(next as string);
    const third = await session.get(link(second.body, 'next') as string);
    expect(idsOf(third.body)).toHaveLength(5);
    expect(link(third.body, 'next')).toBeUndefined();
    const backToSecond = await session.get(link(third.body, 'prev') as string);
    expect(idsOf(backToSecond.body)).toEqual(idsOf(second.body));
    const backToFirst = await session.get(link(backToSecond.body, 'prev') as string);
    expect(idsOf(backToFirst.body)).toEqual(idsOf(first.body));
    const firstLink = /<a href="([^"]+)">First page<\/a>/.exec(third.body)?.[1]?.replace(/&#38;/g, '&');
    expect(idsOf((await session.get(firstLink as string)).body)).toEqual(idsOf(first.body));
    // A chosen sort stays selected and applies on every page.
    const sorted = await session.get(`${base}?_sort=sku:desc&_limit=20`);
    expect(sorted.body).toMatch(/<option value="sku:desc" selected>SKU, descending<\/option>/);
  });

  it('D81: a refused list query is told in the page language, by field label, never the engine English', async () => {
    const pt = await sellerSession(platform.app, seller, { 'accept-language': 'pt-BR' });
    const page = await pt.get(`/console/stores/${seller.tenantIds[0]}/records/orders?status=lost`);
    expect(page.statusCode).toBe(422);
    expect(page.body).toContain('Situação: tem um valor que não é aceito');
    const token = await pt.get(`/console/stores/${seller.tenantIds[0]}/records/orders?_next_token=forged`);
    expect(token.body).toContain('Este link de página não corresponde mais à lista');
  });

  it('D82: the operator searches sellers by name or login and pages past the first 200', async () => {
    // Written straight to the table (nobody signs in as them, so no password hash is computed).
    const at = platform.clock.now().toISOString();
    const rows = [
      ...Array.from({ length: 205 }, (_, i) => `bulk-${String(i).padStart(3, '0')}@feira.test`),
      'needle@feira.test',
    ].map((login, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: `Vendedor ${i}`,
      login,
      password_hash: 'x',
      created_at: at,
    }));
    await platform.database.db.insertInto('sellers').values(rows).execute();
    const operator = await operatorSession(platform.app);
    const all = await operator.get('/console/operator');
    expect(all.body).toMatch(/(\d+) sellers \(more on the next page\)/);
    // Page by page to the end: every seller is reachable.
    let page = all;
    const seen = new Set<string>();
    for (let hops = 0; hops < 10; hops++) {
      for (const m of page.body.matchAll(/<code>([^<]+@feira\.test)<\/code>/g)) seen.add(m[1] as string);
      const next = /<a href="([^"]+#sellers)" rel="next">/.exec(page.body)?.[1];
      if (!next) break;
      page = await operator.get(next.replace(/&#38;/g, '&'));
    }
    expect(seen.has('bulk-000@feira.test')).toBe(true);
    expect(seen.has('bulk-204@feira.test')).toBe(true);
    const found = await operator.get('/console/operator?q=NEEDLE');
    expect(found.body).toContain('needle@feira.test');
    expect(found.body).toContain('1 seller');
    expect(found.body).not.toContain('bulk-000@feira.test');
  });

  it('D81: pt-BR counts zero as none (pt-BR plural rules put 0 with one): "nenhuma tentativa", never "0 tentativa"', () => {
    const pt = translator('pt-BR');
    expect(pt.text('delivery.summary', { topic: 'order', status: 'pendente', attempts: 0 })).toContain('nenhuma tentativa');
    expect(pt.text('delivery.summary', { topic: 'order', status: 'pendente', attempts: 1 })).toContain('1 tentativa');
    expect(pt.text('operator.seller.deleteEffect', { stores: 0 })).not.toContain('a loja dele');
    expect(pt.text('check.latency', { samples: 12, p50: 3.3, p99: 1234.5, max: 2000, deadline: 1000 })).toContain(
      'p50 3,3 ms, p99 1.234,5 ms, máx. 2.000 ms (prazo 1.000 ms)',
    );
  });

  it("D81: the sandbox's demo callback and its documents answer in the browser's language", async () => {
    const pt = { 'accept-language': 'pt-BR' };
    const missing = await platform.app.inject({ method: 'GET', url: '/demo/callback', headers: pt });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('<html lang="pt-BR">');
    expect(missing.body).toContain('Nenhum código de autorização neste endereço');
    const refused = await platform.app.inject({ method: 'GET', url: '/demo/callback?error=access_denied', headers: pt });
    expect(refused.body).toContain('Sem código: <code>access_denied</code>');
    const terms = await platform.app.inject({ method: 'GET', url: '/demo/terms-of-use', headers: pt });
    expect(terms.body).toContain('App de demonstração da Feira: termos de uso');
    const english = await platform.app.inject({
      method: 'GET',
      url: '/demo/privacy-policy',
      headers: { 'accept-language': 'en' },
    });
    expect(english.body).toContain('Feira demo app: privacy policy');
  });

  it('D69: without JavaScript, "Delete app" answers a confirmation page; only its confirm deletes', async () => {
    const app = await platform.createClient({ name: 'Loja Integrada Teste' });
    const operator = await operatorSession(platform.app, { 'accept-language': 'pt-BR' });
    await operator.get('/console/operator');
    const asked = await operator.post(`/console/operator/clients/${app.clientId}/delete`);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<h1>Excluir o aplicativo Loja Integrada Teste?</h1>');
    expect(asked.body).toContain('name="confirmed" value="1"');
    expect((await operator.get('/console/operator')).body).toContain('Loja Integrada Teste');
    const done = await operator.post(`/console/operator/clients/${app.clientId}/delete`, { confirmed: '1' });
    expect(done.statusCode).toBe(303);
    const after = await operator.get(done.headers.location as string);
    expect(after.body).toContain('Loja Integrada Teste foi excluído');
    expect(after.body).not.toContain(`<code>${app.clientId}</code>`);
  });
});
