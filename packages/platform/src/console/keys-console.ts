import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { rotateSigningKey, type SigningKeyView, signingKeyViews } from '../identity/index.js';
import { type Confirmation, confirmationView, confirmForm, isConfirmed } from './confirm-views.js';
import { consoleTimeHtml, formatConsoleTime } from './console-kit.js';
import type { OperatorPageKit } from './operator-rate-limit.js';
import { operatorNav } from './operator-views.js';
import { dataTable } from './table-views.js';

const KEYS_PAGE = '/console/operator/keys';
const ROTATE_ACTION = '/console/operator/keys/rotate';

/** A duration in whole hours, minutes and seconds, written the same in both languages ("1 h 1 min", "10 min"). */
function durationText(seconds: number): string {
  const parts = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ] as const;
  const shown = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}`);
  return shown.length ? shown.join(' ') : '0 s';
}

interface KeyTimingsShown {
  publishDelaySeconds: number;
  retireAfterSeconds: number;
}

function rotateConfirmation(t: Translator, timings: KeyTimingsShown): Confirmation {
  return {
    question: t.text('operator.keys.rotateQuestion'),
    effect: t.text('operator.keys.rotateEffect', {
      delay: durationText(timings.publishDelaySeconds),
      retire: durationText(timings.retireAfterSeconds),
    }),
    yes: t.text('operator.keys.rotateYes'),
  };
}

function keysView(
  t: Translator,
  input: { csrf: string; keys: SigningKeyView[]; timings: KeyTimingsShown; message: string | null; error: string | null },
): string {
  const when = (value: string | null) => (value ? consoleTimeHtml(t, value) : '—');
  const table = input.keys.length
    ? dataTable({
        labelledBy: 'keys-heading',
        label: t.text('operator.keys.table'),
        columns: [
          { label: t.text('operator.keys.kid') },
          { label: t.text('operator.keys.state') },
          { label: t.text('operator.keys.published') },
          { label: t.text('operator.keys.signsFrom') },
          { label: t.text('operator.keys.signsUntil') },
          { label: t.text('operator.keys.retiresAt') },
        ],
        rows: input.keys.map((key) => [
          `<code>${escapeHtml(key.kid)}</code>`,
          `<strong>${t.html(`operator.keys.state.${key.state}`)}</strong>`,
          when(key.published_at),
          when(key.signs_from),
          when(key.signs_until),
          when(key.retires_at),
        ]),
      })
    : `<p>${t.html('operator.keys.none')}</p>`;
  return `${operatorNav(t, 'keys')}
<h1 id="keys-heading">${t.html('operator.keys.title')}</h1>
${input.message ? `<p class="notice" role="status">${escapeHtml(input.message)}</p>` : ''}
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<p>${t.html('operator.keys.intro', {
    delay: durationText(input.timings.publishDelaySeconds),
    retire: durationText(input.timings.retireAfterSeconds),
  })}</p>
${table}
<h2 id="rotate-heading">${t.html('operator.keys.rotateTitle')}</h2>
<p>${t.html('operator.keys.rotateHint')}</p>
<div class="actions">${confirmForm(t, {
    action: ROTATE_ACTION,
    csrf: input.csrf,
    label: t.text('operator.keys.rotate'),
    confirm: rotateConfirmation(t, input.timings),
  })}</div>`;
}

/**
 * The operator console's page of the token signing keys (docs/deploy.md
 * "Rotating keys"): every key with its state, as `GET /admin/v1/signing-keys`
 * lists them, and a rotate button that asks first and does what
 * `POST /admin/v1/signing-keys/rotate` does (D110, D111).
 */
export function operatorKeyRoutes(app: FastifyInstance, kit: OperatorPageKit): void {
  const platform = app.platform;
  const keyTimings = () => app.identity.keyRing.timings;
  const shownTimings = (): KeyTimingsShown => ({
    publishDelaySeconds: Math.round(keyTimings().publishDelayMs / 1000),
    retireAfterSeconds: Math.round(keyTimings().retireAfterMs / 1000),
  });

  async function keysPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; message?: string | null; error?: string | null } = {},
  ) {
    const t = requestTranslator(request);
    const keys = await signingKeyViews(platform.database, platform.clock, keyTimings());
    return kit.page(request, reply, t, true, {
      status: extra.status ?? 200,
      title: t.text('operator.keys.title'),
      body: keysView(t, {
        csrf: kit.csrfToken(request, reply),
        keys,
        timings: shownTimings(),
        message: extra.message ?? null,
        error: extra.error ?? null,
      }),
    });
  }

  app.get<{ Querystring: Record<string, string | undefined> }>(KEYS_PAGE, { schema: { hide: true } }, async (request, reply) => {
    if (!(await kit.guard(request, reply, KEYS_PAGE))) return reply;
    const rotated = request.query.rotated;
    const message =
      rotated && /^[A-Za-z0-9_-]{1,100}$/.test(rotated)
        ? requestTranslator(request).text('operator.keys.rotated', { kid: rotated })
        : null;
    return keysPage(request, reply, { message });
  });

  app.post(ROTATE_ACTION, { schema: { hide: true } }, async (request, reply) => {
    if (!(await kit.guard(request, reply, KEYS_PAGE))) return reply;
    const t = requestTranslator(request);
    if (!isConfirmed(request.body)) {
      // Without JavaScript the button lands here: the same question as the dialog, on a page (D69).
      return kit.page(request, reply, t, true, {
        title: t.text('confirm.title'),
        body: confirmationView(t, {
          confirm: rotateConfirmation(t, shownTimings()),
          action: ROTATE_ACTION,
          csrf: kit.csrfToken(request, reply),
          back: KEYS_PAGE,
        }),
      });
    }
    const rotation = await rotateSigningKey(platform.database, platform, keyTimings());
    if (!rotation.created) {
      // One rotation at a time, as the admin API's 409 says: every process has a key before it signs.
      return keysPage(request, reply, {
        status: 409,
        error: t.text('operator.keys.waiting', { kid: rotation.kid, at: formatConsoleTime(t, rotation.signsFrom) }),
      });
    }
    // This process publishes the key at once; the others within their refresh.
    await app.identity.keyRing.refresh();
    return kit.seeOther(reply, `${KEYS_PAGE}?rotated=${encodeURIComponent(rotation.kid)}`);
  });
}
