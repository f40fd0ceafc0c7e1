import { RATE_LIMIT_BOUNDS } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiRateLimit, type ClientApp, findPublicClientById, setClientRateLimit } from '../accounts/index.js';
import type { PageOptions } from '../http/html-page.js';
import { escapeHtml, hiddenFields } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';

/** What the operator console lends this page: its operator check (with CSRF), its frame and the way back. */
export interface OperatorPageKit {
  guard(request: FastifyRequest, reply: FastifyReply, back: string): Promise<boolean>;
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    signedIn: boolean,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ): unknown;
  seeOther(reply: FastifyReply, location: string): unknown;
  csrfToken(request: FastifyRequest, reply: FastifyReply): string;
}

/** An app's limit in words, and whether it is the platform's default (spec-notes I20). */
export function rateLimitText(t: Translator, own: ApiRateLimit | null, fallback: ApiRateLimit): string {
  const limit = own ?? fallback;
  const words = t.text('operator.rateLimit.value', { perSecond: limit.requestsPerSecond, burst: limit.burst });
  return own ? words : `${words} ${t.text('operator.rateLimit.default')}`;
}

const ClientParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** A whole number within bounds from a form field, or null. */
function boundedField(body: unknown, name: string, { minimum, maximum }: { minimum: number; maximum: number }): number | null {
  const raw = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return value >= minimum && value <= maximum ? value : null;
}

function rateLimitView(
  t: Translator,
  input: { csrf: string; client: ClientApp; fallback: ApiRateLimit; message: string | null; error: string | null },
): string {
  const { client, fallback } = input;
  const action = `/console/operator/clients/${encodeURIComponent(client.id)}/rate-limit`;
  const shown = client.rateLimit ?? fallback;
  const number = (id: string, name: string, label: string, value: number, bounds: { minimum: number; maximum: number }) =>
    `<label for="${id}">${escapeHtml(label)}</label>
<input type="number" id="${id}" name="${name}" required min="${bounds.minimum}" max="${bounds.maximum}" step="1" inputmode="numeric" value="${value}">`;
  return `<p><a href="/console/operator#clients">${t.html('console.back', { place: t.text('operator.accounts.title') })}</a></p>
<h1>${t.html('operator.rateLimit.title', { app: client.name })}</h1>
${input.message ? `<p class="notice" role="status">${escapeHtml(input.message)}</p>` : ''}
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<p>${t.html('operator.rateLimit.intro')}</p>
<p><strong>${t.html('operator.rateLimit.current')}</strong> ${escapeHtml(rateLimitText(t, client.rateLimit, fallback))}</p>
<h2 id="set-limit">${t.html('operator.rateLimit.set')}</h2>
<form method="post" action="${action}" aria-labelledby="set-limit">
${hiddenFields({ csrf: input.csrf })}
${number('rate-per-second', 'requests_per_second', t.text('operator.rateLimit.perSecond'), shown.requestsPerSecond, RATE_LIMIT_BOUNDS.requests_per_second)}
${number('rate-burst', 'burst', t.text('operator.rateLimit.burst'), shown.burst, RATE_LIMIT_BOUNDS.burst)}
<div class="actions"><button type="submit">${t.html('operator.rateLimit.save')}</button></div>
</form>
${
  client.rateLimit
    ? `<form method="post" action="${action}">
${hiddenFields({ csrf: input.csrf, reset: '1' })}
<div class="actions"><button type="submit" class="secondary">${t.html('operator.rateLimit.useDefault', { perSecond: fallback.requestsPerSecond, burst: fallback.burst })}</button></div>
</form>`
    : ''
}`;
}

/**
 * The operator console's page of one app's API rate limit (spec-notes I20): what is in force and a form
 * to set the app's own limit or go back to the default, as `PATCH /admin/v1/clients/{client_id}` does.
 */
export function operatorRateLimitRoutes(app: FastifyInstance, kit: OperatorPageKit): void {
  const platform = app.platform;
  const { db } = platform.database;
  const fallback = platform.config.apiRateLimit;

  async function rateLimitPage(
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    extra: { status?: number; message?: string | null; error?: string | null } = {},
  ) {
    const t = requestTranslator(request);
    const client = await findPublicClientById(db, request.params.id);
    if (!client) {
      return kit.page(request, reply, t, true, {
        status: 404,
        title: t.text('console.notFound.title'),
        body: `<h1>${t.html('console.notFound.title')}</h1><p><a href="/console/operator#clients">${t.html('console.back', { place: t.text('operator.accounts.title') })}</a></p>`,
      });
    }
    return kit.page(request, reply, t, true, {
      status: extra.status ?? 200,
      title: t.text('operator.rateLimit.title', { app: client.name }),
      body: rateLimitView(t, {
        csrf: kit.csrfToken(request, reply),
        client,
        fallback,
        message: extra.message ?? null,
        error: extra.error ?? null,
      }),
    });
  }

  app.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
    '/console/operator/clients/:id/rate-limit',
    { schema: { hide: true, params: ClientParams } },
    async (request, reply) => {
      if (!(await kit.guard(request, reply, '/console/operator'))) return reply;
      const message = request.query.saved ? requestTranslator(request).text('operator.rateLimit.saved') : null;
      return rateLimitPage(request, reply, { message });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/console/operator/clients/:id/rate-limit',
    { schema: { hide: true, params: ClientParams } },
    async (request, reply) => {
      const back = `/console/operator/clients/${encodeURIComponent(request.params.id)}/rate-limit`;
      if (!(await kit.guard(request, reply, back))) return reply;
      let limit: ApiRateLimit | null = null;
      if ((request.body as Record<string, unknown> | undefined)?.reset !== '1') {
        const requestsPerSecond = boundedField(request.body, 'requests_per_second', RATE_LIMIT_BOUNDS.requests_per_second);
        const burst = boundedField(request.body, 'burst', RATE_LIMIT_BOUNDS.burst);
        if (requestsPerSecond === null || burst === null) {
          const error = requestTranslator(request).text('operator.rateLimit.invalid');
          return rateLimitPage(request, reply, { status: 422, error });
        }
        limit = { requestsPerSecond, burst };
      }
      if (!(await setClientRateLimit(db, request.params.id, limit))) return rateLimitPage(request, reply);
      return kit.seeOther(reply, `${back}?saved=1`);
    },
  );
}
