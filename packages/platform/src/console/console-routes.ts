import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { findSellerById, type Seller } from '../accounts/index.js';
import { escapeHtml, type PageOptions, sendPage } from '../http/html-page.js';
import { secretAnswer } from '../http/secret-page.js';
import { labelText, requestTranslator, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid, csrfToken as sessionCsrfToken, sessionSellerId } from '../identity/index.js';
import type { WebhookViewer } from '../webhooks/index.js';
import { assetUrl, compressConsolePage, consoleAssets } from './console-assets.js';
import { type ConsoleKit, type ConsoleWho, noticeHtml, safeConsolePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { CONSOLE_SECTIONS } from './console-sections.js';
import { chrome, consoleLoginView, notFoundView } from './console-views.js';

const LIVE_POLL_MS = 1000;

// One CSRF token per request: a page asks for it twice (header and form) and a browser without the cookie must get one cookie.
const tokens = new WeakMap<FastifyRequest, string>();
function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  let token = tokens.get(request);
  if (!token) {
    token = sessionCsrfToken(request, reply);
    tokens.set(request, token);
  }
  return token;
}

function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

/**
 * The seller console (docs/console.md), server-rendered in the request's language.
 * It shares the identity provider's login session (the same cookie, so a
 * seller signed in for a consent flow is signed in here, and the other way
 * round) and its CSRF token. A store is only ever shown to its seller: any
 * other store id, like an unknown one, is a 404.
 *
 * This file builds the {@link ConsoleKit} and registers each section, by
 * default those of `console-sections.ts`, as its own plugin; the pages live
 * in the sections.
 */
export function consoleRoutes(sections: readonly ConsoleSection[] = CONSOLE_SECTIONS): FastifyPluginAsync {
  return (app) => consoleSections(app, sections);
}

async function consoleSections(app: FastifyInstance, sections: readonly ConsoleSection[]): Promise<void> {
  const { db } = app.platform.database;
  await app.register(consoleAssets);
  // Pages compressed as the browser accepts (D68); the assets come precompressed.
  app.addHook('onSend', compressConsolePage);

  const open = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const stop of open) stop();
  });

  /** The console's page frame: its stylesheet and live module plus the page's own, and the header of whoever is signed in. */
  function frame(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    who: ConsoleWho,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return sendPage(reply, {
      ...options,
      t,
      layout: 'wide',
      // Each asset by its content-hashed URL, cached for a year (D68).
      styles: ['/console/assets/console.css', ...(options.styles ?? [])].map(assetUrl),
      scripts: ['/console/assets/console.js', ...(options.scripts ?? [])].map(assetUrl),
      chrome: chrome({
        t,
        notice: noticeHtml(request, t),
        csrf: csrfToken(request, reply),
        sellerName: who.name,
        back: request.method === 'GET' ? request.url : (who.home?.href ?? '/console'),
        ...(who.signOutAction ? { signOutAction: who.signOutAction } : {}),
        ...(who.home ? { home: who.home } : {}),
      }),
    });
  }

  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    seller: Seller | null,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return frame(request, reply, t, { name: seller?.name ?? null }, options);
  }

  const secretPage: ConsoleKit['secretPage'] = (request, reply, t, seller, { back, ...options }) => {
    secretAnswer(reply);
    return sendPage(reply, {
      ...options,
      t,
      layout: 'wide',
      styles: ['/console/assets/console.css', ...(options.styles ?? [])].map(assetUrl),
      scripts: ['/console/assets/console.js', ...(options.scripts ?? [])].map(assetUrl),
      chrome: chrome({ t, csrf: csrfToken(request, reply), sellerName: seller.name, back }),
    });
  };

  async function signedIn(request: FastifyRequest): Promise<Seller | null> {
    const id = await sessionSellerId(request);
    return id ? ((await findSellerById(db, id)) ?? null) : null;
  }

  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; error?: string; login?: string; next?: string } = {},
  ) {
    const t = requestTranslator(request);
    // Sign-in comes back to the page asked for (a console path only, D68).
    const next = safeConsolePath(extra.next ?? (request.method === 'GET' ? request.url : null));
    return page(request, reply, t, null, {
      status: extra.status ?? 200,
      title: t.text('console.login.title'),
      body: consoleLoginView(t, { csrf: csrfToken(request, reply), ...extra, ...(next ? { next } : {}) }),
    });
  }

  function notFoundPage(request: FastifyRequest, reply: FastifyReply, seller: Seller | null) {
    const t = requestTranslator(request);
    return page(request, reply, t, seller, { status: 404, title: t.text('console.notFound.title'), body: notFoundView(t) });
  }

  /** The signed-in seller and one of their stores, or a reply already sent (login page or 404). */
  async function storeOf(request: FastifyRequest, reply: FastifyReply, tenantId: string) {
    const seller = await signedIn(request);
    if (!seller) {
      loginPage(request, reply, { status: 401 });
      return null;
    }
    const store = seller.tenants.find((s) => s.id === tenantId);
    if (!store) {
      notFoundPage(request, reply, seller);
      return null;
    }
    const viewer: WebhookViewer = { tenantIds: [store.id], clientId: null, bySession: true };
    return { seller, store, viewer };
  }

  const navEntries = sections.flatMap((section) => (section.nav ? [section.nav] : []));
  function storeNav(t: Translator, storeId: string, current: string): string {
    const base = `/console/stores/${encodeURIComponent(storeId)}`;
    const links = navEntries
      .map(
        ({ slug, label }) =>
          `<li><a href="${base}/${escapeHtml(slug)}"${current === slug ? ' aria-current="page"' : ''}>${escapeHtml(labelText(t, label))}</a></li>`,
      )
      .join('');
    return `<nav class="sections" aria-label="${escapeHtml(t.text('console.nav.store'))}"><ul>${links}</ul></nav>`;
  }

  const liveRegion: ConsoleKit['liveRegion'] = (request, reply, live) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    let last = live.fingerprint(live.first);
    res.write(': live\n\n');
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const now = await live.read();
        if (now !== undefined && live.fingerprint(now) !== last) {
          last = live.fingerprint(now);
          res.write(`event: ${live.event}\ndata: ${JSON.stringify(live.render(now))}\n\n`);
        }
      } catch {
        // The database closed under the stream (shutdown): the close handler ends it.
      } finally {
        busy = false;
      }
    }, LIVE_POLL_MS);
    const stop = () => {
      clearInterval(timer);
      open.delete(stop);
      res.end();
    };
    open.add(stop);
    request.raw.on('close', stop);
  };

  const kit: ConsoleKit = {
    frame,
    page,
    secretPage,
    signedIn,
    loginPage,
    notFoundPage,
    storeOf,
    csrfToken,
    csrfValid: csrfTokenValid,
    translator: requestTranslator,
    seeOther,
    storeNav,
    liveRegion,
  };
  for (const section of sections) {
    await app.register(async (scope) => {
      // A console page is HTML for a browser, not an operation of the API: it stays out of the OpenAPI document.
      scope.addHook('onRoute', (route) => {
        if (route.url.startsWith('/console')) route.schema = { ...route.schema, hide: true };
      });
      return section.routes(scope, kit);
    });
  }
}
