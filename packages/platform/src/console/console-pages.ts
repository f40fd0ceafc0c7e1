import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, hiddenFields } from '../http/html-page.js';
import { isTimeZone, requestTranslator, safeReturnPath, TIME_ZONE_COOKIE, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { type ConsoleKit, type ConsoleWho, timeZoneLabel, withNotice } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';

/**
 * Zones a seller in Brazil is likely to want (every Brazilian zone, then
 * UTC); any other IANA zone is accepted from the form too.
 */
const CONSOLE_TIME_ZONES = [
  'America/Sao_Paulo',
  'America/Bahia',
  'America/Fortaleza',
  'America/Recife',
  'America/Maceio',
  'America/Belem',
  'America/Araguaina',
  'America/Santarem',
  'America/Manaus',
  'America/Cuiaba',
  'America/Campo_Grande',
  'America/Porto_Velho',
  'America/Boa_Vista',
  'America/Rio_Branco',
  'America/Eirunepe',
  'America/Noronha',
  'UTC',
] as const;

function timeZoneView(t: Translator, input: { csrf: string; back: string }): string {
  const options = CONSOLE_TIME_ZONES.map((zone) => {
    const label = zone === 'UTC' ? t.text('console.tz.utc') : timeZoneLabel({ ...t, timeZone: zone });
    return `<option value="${zone}"${zone === t.timeZone ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  }).join('');
  return `<h1>${t.html('console.tz.title')}</h1>
<p>${t.html('console.tz.intro')}</p>
<form method="post" action="/console/time-zone">
${hiddenFields({ csrf: input.csrf, back: input.back })}
<label for="zone">${t.html('console.tz.label')}</label>
<select id="zone" name="zone">${options}</select>
<div class="actions"><button type="submit">${t.html('console.tz.submit')}</button>
<a href="${escapeHtml(input.back)}">${t.html('confirm.cancel')}</a></div>
</form>`;
}

/** The console-styled 404 of any console address no route answers. */
function consoleNotFoundView(t: Translator, path: string): string {
  return `<h1>${t.html('console.notFound.title')}</h1>
<p>${t.html('console.notFound.text')}</p>
<p class="muted">${t.html('console.notFound.path', { path: path.slice(0, 200) })}</p>
<p><a href="/console">${t.html('console.back', { place: t.text('console.stores.title') })}</a></p>`;
}

async function whoOf(kit: ConsoleKit, request: FastifyRequest): Promise<ConsoleWho> {
  return { name: (await kit.signedIn(request))?.name ?? null };
}

/**
 * Console pages beside the sections: the time-zone choice (D67, kept in a
 * cookie like the language) and the 404 page of unknown console addresses.
 */
export const pagesSection: ConsoleSection = { name: 'pages', routes: consolePagesRoutes };

async function consolePagesRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  app.get<{ Querystring: { back?: string } }>('/console/time-zone', { schema: { hide: true } }, async (request, reply) => {
    const t = requestTranslator(request);
    const back = safeReturnPath(request.query.back ?? '/console');
    return kit.frame(request, reply, t, await whoOf(kit, request), {
      title: t.text('console.tz.title'),
      body: timeZoneView(t, { csrf: kit.csrfToken(request, reply), back }),
    });
  });

  app.post('/console/time-zone', { schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = safeReturnPath(typeof body.back === 'string' ? body.back : '/console');
    if (!csrfTokenValid(request, body.csrf)) return kit.seeOther(reply, withNotice(back, 'expired'));
    if (!isTimeZone(body.zone)) return kit.seeOther(reply, back);
    reply.setCookie(TIME_ZONE_COOKIE, body.zone, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.server.platform.config.authUrl.startsWith('https:'),
      maxAge: 365 * 24 * 3600,
    });
    return kit.seeOther(reply, withNotice(back, 'zoneSaved'));
  });

  await app.register(
    async (scope) => {
      scope.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
        const t = requestTranslator(request);
        const path = request.url.split('?')[0] ?? '/console';
        return kit.frame(request, reply, t, await whoOf(kit, request), {
          status: 404,
          title: t.text('console.notFound.title'),
          body: consoleNotFoundView(t, path),
        });
      });
    },
    { prefix: '/console' },
  );
}
