// The "Add a console page" recipe (docs/architecture.md), proved with a
// throw-away page: a store's notepad, declared here as the recipe's section
// module declares one (a ConsoleSection taking only the ConsoleKit) and handed
// to the platform as an embedding app hands its own (createPlatform's
// `consoleSections`). The store's navigation links it in both languages, the
// kit frames it, keeps it to the store's seller and checks its form's CSRF
// token; an app without it knows nothing of it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleSection } from '../../src/console/console-section.js';
import { CONSOLE_SECTIONS } from '../../src/console/console-sections.js';
import { escapeHtml, hiddenFields } from '../../src/http/html-page.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { ConsoleSession, sellerSession } from './console-session.js';

// Recipe step 1: the section module (console/<name>-console.ts). Its texts are carried for each
// locale here; a page of the platform's own puts them in the two catalogues instead (step 3).
const TEXT = {
  title: { en: 'Notepad', 'pt-BR': 'Bloco de notas' },
  save: { en: 'Save the note', 'pt-BR': 'Salvar a nota' },
  empty: { en: 'Nothing written yet.', 'pt-BR': 'Nada escrito ainda.' },
} as const;

function notepadSection(): ConsoleSection {
  const notes = new Map<string, string>();
  return {
    name: 'notepad',
    nav: { slug: 'notepad', label: TEXT.title },
    async routes(app, kit) {
      app.get<{ Params: { store: string } }>('/console/stores/:store/notepad', async (request, reply) => {
        const owned = await kit.storeOf(request, reply, request.params.store);
        if (!owned) return reply;
        const t = kit.translator(request);
        const note = notes.get(owned.store.id);
        return kit.page(request, reply, t, owned.seller, {
          title: TEXT.title[t.locale],
          body: `${kit.storeNav(t, owned.store.id, 'notepad')}
<h1>${escapeHtml(TEXT.title[t.locale])}</h1>
<p id="note">${escapeHtml(note ?? TEXT.empty[t.locale])}</p>
<form method="post">${hiddenFields({ csrf: kit.csrfToken(request, reply) })}
<label for="text">${escapeHtml(TEXT.title[t.locale])}</label><textarea id="text" name="text"></textarea>
<button type="submit">${escapeHtml(TEXT.save[t.locale])}</button></form>`,
        });
      });
      app.post<{ Params: { store: string }; Body: Record<string, unknown> }>(
        '/console/stores/:store/notepad',
        async (request, reply) => {
          const owned = await kit.storeOf(request, reply, request.params.store);
          if (!owned) return reply;
          if (!kit.csrfValid(request, request.body?.csrf)) return reply.code(403).send();
          if (typeof request.body?.text === 'string') notes.set(owned.store.id, request.body.text);
          return kit.seeOther(reply, `/console/stores/${owned.store.id}/notepad`);
        },
      );
    },
  };
}

// Recipe step 2: its line in the registry (here, the list handed to the platform).
const sections = [...CONSOLE_SECTIONS, notepadSection()];

describe.each(testDatabaseTargets())('a console page added from the recipe, on $dialect', (target) => {
  let platform: TestPlatform;
  let plain: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { consoleSections: sections });
    plain = await createTestPlatform(target);
  });
  afterAll(async () => {
    await platform?.close();
    await plain?.close();
  });

  it('every store page links it in the store navigation, labelled in the page’s language', async () => {
    const seller = await platform.createSeller();
    const store = seller.tenantIds[0] as string;
    const english = await sellerSession(platform.app, seller);
    const webhooks = await english.get(`/console/stores/${store}/webhooks`);
    expect(webhooks.statusCode).toBe(200);
    expect(webhooks.body).toContain(`<a href="/console/stores/${store}/notepad">Notepad</a>`);
    const portuguese = await sellerSession(platform.app, seller, { 'accept-language': 'pt-BR' });
    expect((await portuguese.get(`/console/stores/${store}/webhooks`)).body).toContain(
      `<a href="/console/stores/${store}/notepad">Bloco de notas</a>`,
    );
  });

  it('the page is framed by the console, marked current in the navigation, and its form round-trips with the CSRF token', async () => {
    const seller = await platform.createSeller();
    const store = seller.tenantIds[0] as string;
    const session = await sellerSession(platform.app, seller);
    const page = await session.get(`/console/stores/${store}/notepad`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Notepad');
    expect(page.body).toContain(`<a href="/console/stores/${store}/notepad" aria-current="page">Notepad</a>`);
    expect(page.body).toContain('/console/assets/console');
    expect(page.body).toContain('Nothing written yet.');

    const saved = await session.post(`/console/stores/${store}/notepad`, { text: 'Call the carrier <Monday>' });
    expect(saved.statusCode).toBe(303);
    expect((await session.get(`/console/stores/${store}/notepad`)).body).toContain('Call the carrier &#60;Monday&#62;');

    const forged = await platform.app.inject({
      method: 'POST',
      url: `/console/stores/${store}/notepad`,
      cookies: Object.fromEntries(session.cookies),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'csrf=forged&text=overwritten',
    });
    expect(forged.statusCode).toBe(403);
    expect((await session.get(`/console/stores/${store}/notepad`)).body).not.toContain('overwritten');
  });

  it('only the store’s seller sees it: another seller gets the console’s 404, nobody signed in the sign-in page', async () => {
    const owner = await platform.createSeller();
    const other = await platform.createSeller();
    const store = owner.tenantIds[0] as string;
    const stranger = await sellerSession(platform.app, other);
    const refused = await stranger.get(`/console/stores/${store}/notepad`);
    expect(refused.statusCode).toBe(404);
    expect(refused.body).not.toContain('Notepad</h1>');
    const anonymous = await new ConsoleSession(platform.app).get(`/console/stores/${store}/notepad`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toContain('name="password"');
  });

  it('an app without the section has neither the page nor its link', async () => {
    const seller = await plain.createSeller();
    const store = seller.tenantIds[0] as string;
    const session = await sellerSession(plain.app, seller);
    expect((await session.get(`/console/stores/${store}/webhooks`)).body).not.toContain('notepad');
    expect((await session.get(`/console/stores/${store}/notepad`)).statusCode).toBe(404);
  });
});

describe('the console page recipe', () => {
  it('docs/architecture.md names the section module, the registry and the two catalogues, and nothing else', () => {
    const doc = readFileSync(new URL('../../../../docs/architecture.md', import.meta.url), 'utf8');
    const section = /### Add a console page\n([\s\S]*?)\n### /.exec(doc)?.[1] ?? '';
    const files = [...section.matchAll(/^\d+\. (`[^`]+`(?: and `[^`]+`)?)/gm)].flatMap((match) =>
      [...(match[1] as string).matchAll(/`([^`]+)`/g)].map((file) => file[1]),
    );
    expect(files).toEqual([
      'packages/platform/src/console/<name>-console.ts',
      'packages/platform/src/console/console-sections.ts',
      'packages/platform/src/i18n/messages-en.ts',
      'messages-pt-br.ts',
    ]);
  });
});
