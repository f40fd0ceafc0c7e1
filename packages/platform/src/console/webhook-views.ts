import { WEBHOOK_CHANGE_STATUSES, type WebhookChangeStatus } from '@feira/contract';
import { escapeHtml, hiddenFields } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import { consoleTimeHtml, formatConsoleTime, topicLabel } from './console-kit.js';
import { postButton, remaining, storeCrumbs } from './console-views.js';
import { catalogueAnchor } from './event-catalogue-views.js';

/**
 * HTML of the webhook pages (a store's log, one delivery, one subscription,
 * its secret, a new endpoint), every string from the catalogues. Subscriber
 * URLs arrive already masked (D65); ids are shown whole or by their end, the
 * part that tells deliveries apart (D63), each with a copy button.
 */

export interface EndpointView {
  id: string;
  appName: string;
  topic: string;
  version: string;
  /** Masked (D65). */
  url: string;
  state: 'active' | 'disabled';
  failureStreak: number;
  graceUntil: string | null;
  /** Failing (still active), disabled by the platform after failing for the W4 period, disabled by the seller, or fine. */
  health: 'ok' | 'failing' | 'autoDisabled' | 'disabled';
  failingSince: string | null;
  disabledAt: string | null;
  /** The seller's own note (D154), shown escaped; null when none. */
  description: string | null;
}

export interface DeliveryRowView {
  id: string;
  eventId: string;
  topic: string;
  status: 'pending' | 'succeeded' | 'dead';
  attempts: number;
  lastStatusCode: number | null;
  createdAt: string;
  nextAttemptAt: string | null;
  /** A test event sent from the console (D153). */
  test: boolean;
  endpoint: EndpointView | null;
}

/** A delivery's state as the seller reads it: pending with a failed attempt behind it is failing (still retrying). */
type ShownDeliveryState = 'pending' | 'succeeded' | 'failing' | 'dead';

export function shownState(d: { status: 'pending' | 'succeeded' | 'dead'; attempts: number }): ShownDeliveryState {
  return d.status === 'pending' && d.attempts > 0 ? 'failing' : d.status;
}

/** The tag a test delivery carries wherever it is shown (D153). */
function testTag(t: Translator, d: { test: boolean }): string {
  return d.test ? ` <span class="tag">${t.html('webhooks.test')}</span>` : '';
}

/** A delivery's state as a pill: each state its own colour and mark (console.css). */
export function deliveryPill(t: Translator, state: ShownDeliveryState): string {
  return `<span class="pill st-${state}">${t.html(`webhooks.status.${state}`)}</span>`;
}

export function subscriptionPill(t: Translator, state: 'active' | 'disabled'): string {
  return `<span class="pill st-${state}">${t.html(`webhooks.state.${state}`)}</span>`;
}

export interface AttemptView {
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  request_headers: Record<string, string> | null;
  /** The receiver's answer headers as kept (a safe, bounded subset); null without an answer or before they were kept. */
  response_headers?: Record<string, string> | null;
  started_at: string;
}

/** The notices a webhook page shows after an action (`?done=<name>`); only these names are read. */
const NOTICES = {
  disabled: 'webhooks.notice.disabled',
  enabled: 'webhooks.notice.enabled',
  rotated: 'webhooks.notice.rotated',
  testSent: 'webhooks.notice.testSent',
  urlSaved: 'webhooks.notice.urlSaved',
  topicSaved: 'webhooks.notice.topicSaved',
  descriptionSaved: 'webhooks.notice.descriptionSaved',
  badEvent: 'webhooks.notice.badEvent',
  created: 'webhooks.notice.created',
  deleted: 'webhooks.notice.deleted',
  expired: 'webhooks.notice.expired',
  badSince: 'webhooks.notice.badSince',
  badPeriod: 'webhooks.notice.badPeriod',
} as const satisfies Record<string, MessageKey>;
export type WebhookNotice = keyof typeof NOTICES;

export function isWebhookNotice(value: unknown): value is WebhookNotice {
  return typeof value === 'string' && Object.hasOwn(NOTICES, value);
}

export function noticeOf(t: Translator, name: WebhookNotice | null, extra = ''): string {
  const text = name ? t.html(NOTICES[name]) : '';
  const all = [text, extra].filter(Boolean).join(' ');
  return all ? `<p class="notice" role="status">${all}</p>` : '';
}

/** The part of an id that tells it apart: a UUID v7 starts with its time, so deliveries of one minute share their start (D63). */
export function idTail(id: string): string {
  return id.length > 12 ? `…${id.slice(-12)}` : id;
}

/**
 * A URL that wraps only before a slash of its path: the scheme and host stay whole on one line, where
 * a plain code element would break them anywhere, or not at all and widen its table.
 */
function breakableUrl(url: string): string {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart < 0) return escapeHtml(url);
  return escapeHtml(url.slice(0, pathStart)) + url.slice(pathStart).split('/').map(escapeHtml).join('<wbr>/');
}

/** An id as code with a copy button (the button shows once the page's module runs: it needs the clipboard). */
function copyableId(t: Translator, id: string, shown = id): string {
  return `<code title="${escapeHtml(id)}">${escapeHtml(shown)}</code> <button type="button" class="link copy" data-copy="${escapeHtml(id)}" data-copied="${escapeHtml(t.text('webhooks.copied'))}" hidden aria-label="${escapeHtml(t.text('webhooks.copyId', { id }))}">${t.html('webhooks.copy')}</button>`;
}

function countdown(until: string, now: Date): string {
  return `<time datetime="${escapeHtml(until)}" data-countdown="${escapeHtml(until)}" data-now="${now.toISOString()}">${remaining(until, now)}</time>`;
}

function webhooksBase(storeId: string): string {
  return `/console/stores/${encodeURIComponent(storeId)}/webhooks`;
}

function crumbs(t: Translator, store: { id: string; name: string }, last: string): string {
  const base = webhooksBase(store.id);
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.stores'))}"><ol><li><a href="/console">${t.html('console.stores.title')}</a></li><li><a href="${base}">${escapeHtml(t.text('webhooks.title', { store: store.name }))}</a></li><li aria-current="page">${escapeHtml(last)}</li></ol></nav>`;
}

/** A POST form that asks first (the console module's `<dialog>`, or the confirmation page without it). */
function confirmedForm(
  t: Translator,
  input: {
    action: string;
    csrf: string;
    label: string;
    question: string;
    effect: string;
    yes: string;
    fields?: Record<string, string>;
    extra?: string;
    danger?: boolean;
    /** The dialog's yes is not styled as destructive (showing a secret changes nothing). */
    neutral?: boolean;
  },
): string {
  return `<form method="post" action="${escapeHtml(input.action)}" class="cell-form"${input.danger ? ' data-confirm-tone="danger"' : input.neutral ? ' data-confirm-tone="neutral"' : ''} data-confirm="${escapeHtml(input.question)}" data-confirm-effect="${escapeHtml(input.effect)}" data-confirm-yes="${escapeHtml(input.yes)}" data-confirm-no="${escapeHtml(t.text('confirm.cancel'))}">${hiddenFields({ csrf: input.csrf, ...(input.fields ?? {}) })}${input.extra ?? ''}<button type="submit" class="${input.danger ? 'danger secondary' : 'secondary'}">${escapeHtml(input.label)}</button></form>`;
}

/** Grace choices for a rotation (D64): how long the old secret keeps signing. */
const GRACE_CHOICES_HOURS = [0, 1, 6, 12, 24] as const;

function graceSelect(t: Translator, id: string, chosenHours = 1): string {
  const options = GRACE_CHOICES_HOURS.map(
    (h) =>
      `<option value="${h}"${h === chosenHours ? ' selected' : ''}>${h === 0 ? t.html('webhooks.grace.none') : t.html('webhooks.grace.hours', { hours: h })}</option>`,
  ).join('');
  return `<label for="${id}">${t.html('webhooks.grace.label')}</label> <select id="${id}" name="grace_hours">${options}</select> `;
}

function disableForm(t: Translator, action: string, csrf: string, s: EndpointView, from: Record<string, string> = {}): string {
  return s.state === 'active'
    ? confirmedForm(t, {
        action: `${action}/state`,
        csrf,
        label: t.text('webhooks.disable'),
        question: t.text('webhooks.confirm.disable', { topic: topicLabel(t, s.topic), app: s.appName }),
        effect: t.text('webhooks.confirm.disableEffect'),
        yes: t.text('webhooks.disable'),
        fields: { state: 'disabled', ...from },
      })
    : postButton(`${action}/state`, csrf, t.text('webhooks.enable'), { state: 'active', ...from });
}

function rotateForm(t: Translator, action: string, csrf: string, s: EndpointView, from: Record<string, string> = {}): string {
  return s.version === 'v1'
    ? confirmedForm(t, {
        action: `${action}/rotate`,
        csrf,
        label: t.text('webhooks.rotate'),
        question: t.text('webhooks.confirm.rotate', { topic: topicLabel(t, s.topic), app: s.appName }),
        effect: t.text('webhooks.confirm.rotateEffect'),
        yes: t.text('webhooks.rotate'),
        fields: from,
        extra: graceSelect(t, 'grace'),
      })
    : '';
}

function secretCell(t: Translator, s: EndpointView, now: Date): string {
  if (s.version !== 'v1') return t.html('webhooks.noSecret');
  return s.graceUntil && Date.parse(s.graceUntil) > now.getTime()
    ? t.html('webhooks.grace', { remaining: { html: countdown(s.graceUntil, now) } })
    : t.html('webhooks.current');
}

export interface LogFilterView {
  status: string;
  topic: string;
  subscription: string;
  from: string;
  to: string;
  q: string;
}

export function webhooksView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    nav: string;
    subscriptions: EndpointView[];
    topics: readonly string[];
    deliveries: DeliveryRowView[];
    filters: LogFilterView;
    /** The query string of this page's filters (no cursor), for the live region and the paging links. */
    filterQuery: string;
    nextToken: string | null;
    /** True on a page after the first (the live region then stays still). */
    paged: boolean;
    /** How many deliveries match the filters (D156) and where this page starts among them. */
    count: LogCount;
    csrf: string;
    now: Date;
    sinceDefault: string;
    /** The end of "resend all failed"'s period (now, in the seller's zone). */
    untilDefault: string;
    zoneLabel: string;
    notice: string;
  },
): string {
  const base = webhooksBase(input.store.id);
  const subs = input.subscriptions
    .map((s) => {
      const action = `${base}/subscriptions/${encodeURIComponent(s.id)}`;
      const name = t.text('webhooks.openSubscription', { topic: topicLabel(t, s.topic), app: s.appName });
      // The row keeps what a seller does from a list (disable, enable); the secret's rotation is on the subscription's page.
      const manage = `<a class="cell-link" href="${action}" aria-label="${escapeHtml(t.text('webhooks.manageSubscription', { topic: topicLabel(t, s.topic), app: s.appName }))}">${t.html('webhooks.manage')}</a>`;
      return `<tr><td data-label="${escapeHtml(t.text('webhooks.col.app'))}">${escapeHtml(s.appName)}</td><td data-label="${escapeHtml(t.text('webhooks.col.topic'))}"><a href="${action}" aria-label="${escapeHtml(name)}">${escapeHtml(topicLabel(t, s.topic))}</a> <code class="slug">${escapeHtml(s.topic)}</code></td><td data-label="${escapeHtml(t.text('webhooks.col.version'))}">${escapeHtml(s.version)}</td><td data-label="URL"><code class="url">${breakableUrl(s.url)}</code></td><td class="opt" data-label="${escapeHtml(t.text('webhooks.col.description'))}">${s.description ? escapeHtml(s.description) : ''}</td><td data-label="${escapeHtml(t.text('webhooks.col.state'))}">${subscriptionPill(t, s.state)}</td><td class="num" data-label="${escapeHtml(t.text('webhooks.col.streak'))}">${t.number(s.failureStreak)}</td><td data-label="${escapeHtml(t.text('webhooks.col.secret'))}">${secretCell(t, s, input.now)}</td><td data-label="${escapeHtml(t.text('webhooks.col.actions'))}"><div class="row-actions">${disableForm(t, action, input.csrf, s)}${manage}</div></td></tr>`;
    })
    .join('\n');
  const f = input.filters;
  const option = (value: string, label: string, current: string) =>
    `<option value="${escapeHtml(value)}"${current === value ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const statusNames: Record<string, string> = {
    '': t.text('webhooks.filter.all'),
    pending: t.text('webhooks.status.pending'),
    succeeded: t.text('webhooks.status.succeeded'),
    failed: t.text('webhooks.filter.failed'),
    dead: t.text('webhooks.status.dead'),
  };
  const statuses = Object.entries(statusNames)
    .map(([v, label]) => option(v, label, f.status))
    .join('');
  const topics = ['', ...input.topics]
    .map((v) => option(v, v ? topicLabel(t, v) : t.text('webhooks.filter.all'), f.topic))
    .join('');
  const endpoints = [option('', t.text('webhooks.filter.all'), f.subscription)]
    .concat(input.subscriptions.map((s) => option(s.id, `${s.appName} · ${topicLabel(t, s.topic)} · ${s.url}`, f.subscription)))
    .join('');
  const liveQuery = input.filterQuery ? `?${input.filterQuery}` : '';
  // The next page starts after this one's rows: its position among the matches travels with its cursor.
  const olderAt = input.count.at + input.deliveries.length;
  const older = input.nextToken
    ? `<a href="${base}?${input.filterQuery ? `${escapeHtml(input.filterQuery)}&amp;` : ''}cursor=${encodeURIComponent(input.nextToken)}&amp;at=${olderAt}#deliveries" rel="next">${t.html('webhooks.older')}</a>`
    : '';
  const newest = input.paged ? `<a href="${base}${escapeHtml(liveQuery)}#deliveries">${t.html('webhooks.newest')}</a>` : '';
  return `${storeCrumbs(t, input.store)}
${input.nav}
<h1>${t.html('webhooks.title', { store: input.store.name })}</h1>
${input.notice}
${endpointAlerts(t, base, input.subscriptions)}
<h2 id="subs">${t.html('webhooks.subscriptions')}</h2>
<ul class="inline-list"><li><a href="${base}/subscriptions/new">${t.html('webhooks.addEndpoint')}</a></li><li><a href="${base}/events">${t.html('catalogue.link')}</a></li></ul>
${
  input.subscriptions.length === 0
    ? `<p>${t.html('webhooks.noSubscriptions')}</p>`
    : `<div class="table-wrap"><table class="stack" aria-labelledby="subs"><thead><tr><th scope="col">${t.html('webhooks.col.app')}</th><th scope="col">${t.html('webhooks.col.topic')}</th><th scope="col">${t.html('webhooks.col.version')}</th><th scope="col">${t.html('webhooks.col.url')}</th><th scope="col">${t.html('webhooks.col.description')}</th><th scope="col">${t.html('webhooks.col.state')}</th><th scope="col">${t.html('webhooks.col.streak')}</th><th scope="col">${t.html('webhooks.col.secret')}</th><th scope="col">${t.html('webhooks.col.actions')}</th></tr></thead><tbody>${subs}</tbody></table></div>`
}
<h2 id="deliveries">${t.html('webhooks.deliveries')}</h2>
<form method="post" action="${base}/deliveries/resend-failed" class="inline resend" data-confirm="${escapeHtml(t.text('webhooks.resendFailed.question'))}" data-confirm-effect="${escapeHtml(t.text('webhooks.resendFailed.effect'))}" data-confirm-yes="${escapeHtml(t.text('webhooks.resendFailed.submit'))}" data-confirm-no="${escapeHtml(t.text('confirm.cancel'))}">
${hiddenFields({ csrf: input.csrf })}
<label for="since">${t.html('webhooks.resendFailed.from')}</label>
<input type="datetime-local" id="since" name="since" required value="${escapeHtml(input.sinceDefault)}" aria-describedby="resend-zone">
<label for="until">${t.html('webhooks.resendFailed.until')}</label>
<input type="datetime-local" id="until" name="until" value="${escapeHtml(input.untilDefault)}" aria-describedby="resend-zone">
<button type="submit" class="secondary">${t.html('webhooks.resendFailed.submit')}</button>
<span class="muted" id="resend-zone">${t.html('webhooks.filter.zone', { zone: input.zoneLabel })}</span>
</form>
<form method="get" action="${base}" class="filters" role="search" aria-label="${escapeHtml(t.text('webhooks.filter.label'))}">
<div><label for="status">${t.html('webhooks.filter.status')}</label><select id="status" name="status">${statuses}</select></div>
<div><label for="topic">${t.html('webhooks.filter.topic')}</label><select id="topic" name="topic">${topics}</select></div>
<div><label for="subscription">${t.html('webhooks.filter.endpoint')}</label><select id="subscription" name="subscription">${endpoints}</select></div>
<div><label for="from">${t.html('webhooks.filter.from')}</label><input type="datetime-local" id="from" name="from" value="${escapeHtml(f.from)}" aria-describedby="filter-zone"></div>
<div><label for="to">${t.html('webhooks.filter.to')}</label><input type="datetime-local" id="to" name="to" value="${escapeHtml(f.to)}" aria-describedby="filter-zone"></div>
<div><label for="q">${t.html('webhooks.filter.search')}</label><input type="search" id="q" name="q" maxlength="64" value="${escapeHtml(f.q)}"></div>
<div><button type="submit" class="secondary">${t.html('webhooks.filter.apply')}</button></div>
<p class="muted" id="filter-zone">${t.html('webhooks.filter.zone', { zone: input.zoneLabel })}</p>
</form>
<section id="delivery-list" aria-live="polite"${input.paged ? '' : ` data-live="${base}/deliveries/live${escapeHtml(liveQuery)}"`}>
${deliveriesRegion(t, input.store.id, input.deliveries, input.count)}
</section>
<p class="paging">${newest} ${older}</p>`;
}

/**
 * The console's alert about endpoints (the operational webhooks carry the same
 * news to the seller's own address): each subscription failing now, and each
 * one the platform disabled after failing for the W4 period.
 */
function endpointAlerts(t: Translator, base: string, subscriptions: EndpointView[]): string {
  const items = subscriptions
    .filter((s) => s.health === 'failing' || s.health === 'autoDisabled')
    .map((s) => {
      const name = {
        html: `<a href="${base}/subscriptions/${encodeURIComponent(s.id)}">${escapeHtml(t.text('webhooks.subscriptionName', { topic: topicLabel(t, s.topic), app: s.appName }))}</a>`,
      };
      return s.health === 'failing'
        ? `<li>${t.html('webhooks.alert.failing', { name, count: s.failureStreak, since: { html: s.failingSince ? consoleTimeHtml(t, s.failingSince) : '—' } })}</li>`
        : `<li>${t.html('webhooks.alert.disabled', { name, when: { html: s.disabledAt ? consoleTimeHtml(t, s.disabledAt) : '—' } })}</li>`;
    })
    .join('');
  if (!items) return '';
  return `<section class="notice warn" role="status" aria-labelledby="endpoint-alerts" id="alerts"><h2 id="endpoint-alerts">${t.html('webhooks.alert.title')}</h2><ul>${items}</ul><p>${t.html('webhooks.alert.where', { link: { html: `<a href="${base}/alerts">${t.html('webhooks.alert.settings')}</a>` } })}</p></section>`;
}

/** How many deliveries the log's filters match, counted up to a cap (D156), and the index of a page's first row among them. */
export interface LogCount {
  total: number;
  /** More than `total` match: the count stopped at its cap. */
  more: boolean;
  at: number;
}

/** "51–100 of 1,234 deliveries" under the log's table, beside its paging ("10,000+" past the cap). */
function countLine(t: Translator, shown: number, count: LogCount): string {
  if (shown === 0) return '';
  // A position from a hand-edited URL cannot claim rows past a count that reached its end.
  const first = count.more ? count.at + 1 : Math.min(count.at + 1, Math.max(1, count.total - shown + 1));
  const last = first + shown - 1;
  const total = count.more ? count.total : Math.max(count.total, last);
  return `<p class="muted" id="delivery-count">${t.html('webhooks.count', { first, last, total, more: count.more ? 'yes' : 'no' })}</p>`;
}

/** The deliveries table (with the count of what matches, on the log), also sent whole over server-sent events when a delivery is added or changes. */
export function deliveriesRegion(t: Translator, storeId: string, deliveries: DeliveryRowView[], count?: LogCount): string {
  const base = webhooksBase(storeId);
  const rows = deliveries
    .map((d) => {
      const endpoint = d.endpoint
        ? `${escapeHtml(d.endpoint.appName)}<br><code class="url">${breakableUrl(d.endpoint.url)}</code>`
        : t.html('webhooks.endpointGone');
      return `<tr><td class="nowrap" data-label="ID"><a href="${base}/deliveries/${encodeURIComponent(d.id)}" aria-label="${escapeHtml(t.text('webhooks.open', { id: d.id }))}"><code>${escapeHtml(idTail(d.id))}</code></a> ${copyButton(t, d.id)}</td><td data-label="${escapeHtml(t.text('webhooks.col.created'))}">${consoleTimeHtml(t, d.createdAt)}</td><td class="nowrap" data-label="${escapeHtml(t.text('webhooks.col.topic'))}">${escapeHtml(topicLabel(t, d.topic))}${testTag(t, d)}</td><td data-label="${escapeHtml(t.text('webhooks.col.endpoint'))}">${endpoint}</td><td data-label="${escapeHtml(t.text('webhooks.col.status'))}">${deliveryPill(t, shownState(d))}</td><td class="num" data-label="${escapeHtml(t.text('webhooks.col.attempts'))}">${t.number(d.attempts)}</td><td class="num" data-label="${escapeHtml(t.text('webhooks.col.lastStatus'))}">${d.lastStatusCode ?? '—'}</td></tr>`;
    })
    .join('\n');
  return deliveries.length === 0
    ? `<p>${t.html('webhooks.noDeliveries')}</p>`
    : `<div class="table-wrap"><table class="stack" aria-labelledby="deliveries"><thead><tr><th scope="col">ID</th><th scope="col">${t.html('webhooks.col.created')}</th><th scope="col">${t.html('webhooks.col.topic')}</th><th scope="col">${t.html('webhooks.col.endpoint')}</th><th scope="col">${t.html('webhooks.col.status')}</th><th scope="col">${t.html('webhooks.col.attempts')}</th><th scope="col">${t.html('webhooks.col.lastStatus')}</th></tr></thead><tbody>${rows}</tbody></table></div>${count ? countLine(t, deliveries.length, count) : ''}`;
}

function copyButton(t: Translator, id: string): string {
  return `<button type="button" class="link copy" data-copy="${escapeHtml(id)}" data-copied="${escapeHtml(t.text('webhooks.copied'))}" hidden aria-label="${escapeHtml(t.text('webhooks.copyId', { id }))}">${t.html('webhooks.copy')}</button>`;
}

/** A header list as `name: value` lines (the receiver saw exactly these). */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${escapeHtml(name)}: ${escapeHtml(value)}`)
    .join('\n');
}

/**
 * The delivery's summary and attempts, sent whole over server-sent events
 * when either changes. Attempts are numbered in the order they were made
 * (a resend starts a new cycle, not a new count: D63).
 */
export function attemptsRegion(
  t: Translator,
  d: { topic: string; status: 'pending' | 'succeeded' | 'dead'; nextAttemptAt: string | null; attempts: number },
  attempts: AttemptView[],
): string {
  const summary = `<p id="delivery-summary">${t.html('delivery.summaryAll', { topic: topicLabel(t, d.topic), status: t.text(`webhooks.status.${shownState(d)}`), attempts: attempts.length })}</p>`;
  if (attempts.length === 0) return `${summary}\n<p>${t.html('delivery.noAttempts')}</p>`;
  const rows = attempts
    .map(
      (a, i) =>
        `<tr><td class="num" data-label="${escapeHtml(t.text('delivery.col.attempt'))}">${i + 1}</td><td data-label="${escapeHtml(t.text('delivery.col.started'))}">${consoleTimeHtml(t, a.started_at)}</td><td data-label="${escapeHtml(t.text('delivery.col.outcome'))}"><span class="pill${a.outcome === 'failed' ? ' bad' : ''}">${t.html(`delivery.outcome.${a.outcome}`)}</span></td><td class="num" data-label="${escapeHtml(t.text('delivery.col.status'))}">${a.status_code ?? '—'}</td><td class="num" data-label="${escapeHtml(t.text('delivery.col.latency'))}">${t.html('delivery.latency', { ms: a.duration_ms })}</td><td data-label="${escapeHtml(t.text('delivery.col.error'))}">${a.error ? `<code>${escapeHtml(a.error)}</code>` : ''}</td></tr>`,
    )
    .join('\n');
  const bodies = attempts
    .map(
      (
        a,
        i,
      ) => `<details class="attempt"${i === attempts.length - 1 ? ' open' : ''}><summary>${t.html('delivery.attemptDetail', { attempt: i + 1 })}</summary>
<h3 id="req-${i}">${t.html('delivery.requestHeaders', { attempt: i + 1 })}</h3>
<pre aria-labelledby="req-${i}" tabindex="0">${a.request_headers ? headerLines(a.request_headers) : t.html('delivery.notRecorded')}</pre>
<h3 id="res-${i}">${t.html('delivery.responseHeaders', { attempt: i + 1 })}</h3>
<pre aria-labelledby="res-${i}" tabindex="0">${a.response_headers ? headerLines(a.response_headers) : t.html('delivery.noResponseHeaders')}</pre>
<h3 id="body-${i}">${t.html('delivery.responseBody', { attempt: i + 1 })}</h3>
<pre aria-labelledby="body-${i}" tabindex="0">${a.response_body ? escapeHtml(a.response_body) : t.html('delivery.emptyBody')}</pre>
</details>`,
    )
    .join('\n');
  const next = d.nextAttemptAt ? `<p>${t.html('delivery.nextAttempt', { when: formatConsoleTime(t, d.nextAttemptAt) })}</p>` : '';
  return `${summary}
<div class="table-wrap"><table class="stack"><caption>${t.html('delivery.attempts')}</caption><thead><tr><th scope="col">${t.html('delivery.col.attempt')}</th><th scope="col">${t.html('delivery.col.started')}</th><th scope="col">${t.html('delivery.col.outcome')}</th><th scope="col">${t.html('delivery.col.status')}</th><th scope="col">${t.html('delivery.col.latency')}</th><th scope="col">${t.html('delivery.col.error')}</th></tr></thead><tbody>${rows}</tbody></table></div>
${next}
${bodies}`;
}

export function deliveryView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    delivery: DeliveryRowView;
    attempts: AttemptView[];
    requestBody: string | null;
    csrf: string;
    notice: string;
  },
): string {
  const base = webhooksBase(input.store.id);
  const d = input.delivery;
  const e = d.endpoint;
  const endpointFacts = e
    ? `<dt>${t.html('webhooks.col.app')}</dt><dd>${escapeHtml(e.appName)}</dd>
<dt>${t.html('delivery.subscription')}</dt><dd><a href="${base}/subscriptions/${encodeURIComponent(e.id)}">${escapeHtml(t.text('webhooks.subscriptionName', { topic: topicLabel(t, e.topic), app: e.appName }))}</a></dd>
<dt>URL</dt><dd><code>${escapeHtml(e.url)}</code></dd>`
    : `<dt>${t.html('delivery.subscription')}</dt><dd>${t.html('webhooks.endpointGone')}</dd>`;
  return `${crumbs(t, input.store, idTail(d.id))}
<h1>${t.html('delivery.title', { id: d.id })}${testTag(t, d)}</h1>
${d.test ? `<p>${t.html('delivery.test')}</p>` : ''}
${input.notice}
<dl class="facts">
<dt>${t.html('delivery.id')}</dt><dd>${copyableId(t, d.id)}</dd>
<dt>${t.html('delivery.eventId')}</dt><dd>${copyableId(t, d.eventId)}</dd>
<dt>${t.html('webhooks.col.topic')}</dt><dd>${escapeHtml(topicLabel(t, d.topic))} <code>${escapeHtml(d.topic)}</code></dd>
<dt>${t.html('webhooks.col.created')}</dt><dd>${consoleTimeHtml(t, d.createdAt)}</dd>
${endpointFacts}
</dl>
${
  e?.state === 'disabled'
    ? `<p class="notice warn" id="resend-disabled">${t.html('delivery.resendDisabled', { link: { html: `<a href="${base}/subscriptions/${encodeURIComponent(e.id)}">${t.html('delivery.resendDisabled.link')}</a>` } })}</p>`
    : ''
}
<form method="post" action="${base}/deliveries/${encodeURIComponent(d.id)}/resend">
${hiddenFields({ csrf: input.csrf })}
<button type="submit"${e?.state === 'disabled' ? ' class="secondary" aria-describedby="resend-disabled"' : ''}>${t.html('delivery.resend')}</button>
</form>
<h2 id="request-body">${t.html('delivery.requestBody')}</h2>
<pre aria-labelledby="request-body" tabindex="0">${input.requestBody === null ? t.html('delivery.notRecorded') : escapeHtml(prettyJson(input.requestBody))}</pre>
<h2>${t.html('delivery.attempts')}</h2>
<p class="muted">${t.html('delivery.live')}</p>
<section id="attempts" aria-live="polite" data-live="${base}/deliveries/${encodeURIComponent(d.id)}/live">
${attemptsRegion(t, d, input.attempts)}
</section>`;
}

/** The body indented for reading; the bytes sent are the compact original (the signature covers those). */
function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export interface SubscriptionStats {
  attempts: number;
  succeeded: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** Hourly buckets over the last 24 h: start (ISO), ok, failed, p50 latency. */
  buckets: Array<{ start: string; ok: number; failed: number; p50Ms: number | null }>;
}

function dataBlock(id: string, value: unknown, charts: string): string {
  return `<script type="application/json" id="${id}" data-charts="${escapeHtml(charts)}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
}

export function subscriptionView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    subscription: EndpointView & { createdAt: string; rawUrlHasQuery: boolean };
    /** The event catalogue's page (D153), whose examples the test events are. */
    catalogue: string;
    deliveries: DeliveryRowView[];
    stats: SubscriptionStats;
    csrf: string;
    now: Date;
    notice: string;
    /** A notice about the deliveries (a test event queued), shown beside them: the redirect lands there. */
    deliveriesNotice?: string;
    urlError: string | null;
    urlValue: string;
    /** The topics this subscription may be moved to (the contract's), and why the last choice was refused. */
    topics: readonly string[];
    topicError: string | null;
    /** The description field's value and why it was refused (D154). */
    descriptionValue: string;
    descriptionError: string | null;
    /** The chart module's URL (hashed, D68), loaded only on this page. */
    chartsModule: string;
  },
): string {
  const base = webhooksBase(input.store.id);
  const s = input.subscription;
  const action = `${base}/subscriptions/${encodeURIComponent(s.id)}`;
  const rate =
    input.stats.attempts === 0 ? '—' : t.html('subscription.rate', { rate: input.stats.succeeded / input.stats.attempts });
  const latency =
    input.stats.p50Ms === null
      ? '—'
      : t.html('subscription.latency', { p50: input.stats.p50Ms, p95: input.stats.p95Ms ?? input.stats.p50Ms });
  const labels = {
    time: t.text('subscription.col.hour'),
    outcomes: t.text('subscription.chart.outcomes'),
    latency: t.text('subscription.chart.latency'),
    ok: t.text('delivery.outcome.succeeded'),
    failed: t.text('delivery.outcome.failed'),
  };
  const urlError = input.urlError ? `<p class="error" role="alert" id="url-error">${escapeHtml(input.urlError)}</p>` : '';
  const topicError = input.topicError ? `<p class="error" role="alert" id="topic-error">${escapeHtml(input.topicError)}</p>` : '';
  const topicChoices = input.topics
    .map(
      (topic, i) =>
        `<li><input type="radio" id="topic-${i}" name="topic" value="${escapeHtml(topic)}"${topic === s.topic ? ' checked' : ''}> <label for="topic-${i}" class="inline-label">${escapeHtml(topicLabel(t, topic))} <code>${escapeHtml(topic)}</code></label></li>`,
    )
    .join('');
  const rows = input.stats.buckets
    .filter((b) => b.ok + b.failed > 0)
    .map(
      (b) =>
        `<tr><td>${consoleTimeHtml(t, b.start)}</td><td class="num">${t.number(b.ok)}</td><td class="num">${t.number(b.failed)}</td><td class="num">${b.p50Ms === null ? '—' : t.html('delivery.latency', { ms: b.p50Ms })}</td></tr>`,
    )
    .join('');
  return `${crumbs(t, input.store, t.text('webhooks.subscriptionName', { topic: topicLabel(t, s.topic), app: s.appName }))}
<h1>${t.html('subscription.title', { topic: topicLabel(t, s.topic), app: s.appName })}</h1>
${input.notice}
<dl class="facts">
<dt>ID</dt><dd>${copyableId(t, s.id)}</dd>
<dt>${t.html('webhooks.col.app')}</dt><dd>${escapeHtml(s.appName)}</dd>
<dt>${t.html('webhooks.col.topic')}</dt><dd>${escapeHtml(topicLabel(t, s.topic))} <code>${escapeHtml(s.topic)}</code></dd>
<dt>${t.html('webhooks.col.version')}</dt><dd>${escapeHtml(s.version)}</dd>
<dt>URL</dt><dd><code>${escapeHtml(s.url)}</code></dd>
<dt>${t.html('webhooks.col.description')}</dt><dd>${s.description ? escapeHtml(s.description) : '—'}</dd>
<dt>${t.html('webhooks.col.state')}</dt><dd>${subscriptionPill(t, s.state)}</dd>
<dt>${t.html('webhooks.col.streak')}</dt><dd>${t.number(s.failureStreak)}</dd>
<dt>${t.html('webhooks.col.secret')}</dt><dd>${secretCell(t, s, input.now)}</dd>
<dt>${t.html('subscription.since')}</dt><dd>${consoleTimeHtml(t, s.createdAt)}</dd>
</dl>
<div class="actions">
${testEventForm(t, action, input.csrf, s.topic, input.catalogue)}
${disableForm(t, action, input.csrf, s, { from: 'subscription' })}
${rotateForm(t, action, input.csrf, s, { from: 'subscription' })}
${confirmedForm(t, {
  action: `${action}/delete`,
  csrf: input.csrf,
  label: t.text('webhooks.delete'),
  question: t.text('webhooks.confirm.delete', { topic: topicLabel(t, s.topic), app: s.appName }),
  effect: t.text('webhooks.confirm.deleteEffect'),
  yes: t.text('webhooks.delete'),
  fields: { from: 'subscription' },
  danger: true,
})}
${
  s.version === 'v1'
    ? confirmedForm(t, {
        action: `${action}/reveal`,
        csrf: input.csrf,
        label: t.text('subscription.reveal'),
        question: t.text('subscription.confirm.reveal'),
        effect: t.text('subscription.confirm.revealEffect'),
        yes: t.text('subscription.reveal'),
        neutral: true,
      })
    : ''
}
</div>
<h2 id="health">${t.html('subscription.health')}</h2>
<p>${t.html('subscription.rateLabel')} ${rate} · ${t.html('subscription.latencyLabel')} ${latency} · ${t.html('subscription.attempts24h', { count: input.stats.attempts })}</p>
<figure>
<div id="subscription-chart" class="chart" data-labels="${escapeHtml(JSON.stringify(labels))}"></div>
<figcaption>${t.html('subscription.chart.caption')}</figcaption>
</figure>
${dataBlock('subscription-stats', input.stats, input.chartsModule)}
${rows ? `<details><summary>${t.html('subscription.chart.table')}</summary><div class="table-wrap"><table><caption>${t.html('subscription.chart.table')}</caption><thead><tr><th scope="col">${t.html('subscription.col.hour')}</th><th scope="col">${t.html('delivery.outcome.succeeded')}</th><th scope="col">${t.html('delivery.outcome.failed')}</th><th scope="col">p50</th></tr></thead><tbody>${rows}</tbody></table></div></details>` : ''}
<h2 id="deliveries">${t.html('subscription.recent')}</h2>
${input.deliveriesNotice ?? ''}
${deliveriesRegion(t, input.store.id, input.deliveries)}
<p><a href="${base}?subscription=${encodeURIComponent(s.id)}#deliveries">${t.html('subscription.allDeliveries')}</a></p>
<h2 id="edit">${t.html('subscription.edit')}</h2>
<form method="post" action="${action}/url">
${hiddenFields({ csrf: input.csrf })}
<label for="url">${t.html('subscription.url')}</label>
<input type="url" id="url" name="url" required maxlength="2048" value="${escapeHtml(input.urlValue)}"${input.urlError ? ' aria-describedby="url-error" aria-invalid="true"' : ' aria-describedby="url-help"'}>
<p class="muted" id="url-help">${t.html(s.rawUrlHasQuery ? 'subscription.urlHelpQuery' : 'subscription.urlHelp')}</p>
${urlError}
<div class="actions"><button type="submit">${t.html('subscription.save')}</button></div>
</form>
<h2 id="description-title">${t.html('webhooks.col.description')}</h2>
<form method="post" action="${action}/description">
${hiddenFields({ csrf: input.csrf })}
${descriptionField(t, input.descriptionValue, input.descriptionError)}
<div class="actions"><button type="submit">${t.html('subscription.description.save')}</button></div>
</form>
<h2 id="topic">${t.html('subscription.topic.title')}</h2>
<form method="post" action="${action}/topic">
${hiddenFields({ csrf: input.csrf })}
<fieldset aria-describedby="${input.topicError ? 'topic-error topic-help' : 'topic-help'}"><legend>${t.html('subscription.topic.legend')}</legend><ul class="plain">${topicChoices}</ul></fieldset>
<p class="muted" id="topic-help">${t.html('subscription.topic.help')}</p>
${topicError}
<div class="actions"><button type="submit">${t.html('subscription.topic.save')}</button></div>
</form>`;
}

/**
 * "Send a test event" with its event type (D153): one per change of the
 * subscription's topic, the update first (what it always sent), and a link to
 * the catalogue's examples, which are the bodies sent.
 */
function testEventForm(t: Translator, action: string, csrf: string, topic: string, catalogue: string): string {
  const order: WebhookChangeStatus[] = ['UPDATE', ...WEBHOOK_CHANGE_STATUSES.filter((status) => status !== 'UPDATE')];
  const options = order
    .map(
      (status) =>
        `<option value="${status}">${escapeHtml(t.text('catalogue.option', { type: t.text(`catalogue.status.${status}`), status }))}</option>`,
    )
    .join('');
  return `<form method="post" action="${escapeHtml(`${action}/test`)}" class="cell-form">${hiddenFields({ csrf })}<label for="test-status">${t.html('subscription.test.type')}</label> <select id="test-status" name="status">${options}</select> <button type="submit">${t.html('subscription.test')}</button> <a href="${escapeHtml(`${catalogue}#${catalogueAnchor(topic)}`)}">${t.html('subscription.test.example')}</a></form>`;
}

/** The description's field (D154): optional, one line, bounded as the contract bounds it, its refusal beside it. */
function descriptionField(t: Translator, value: string, error: string | null): string {
  const described = error ? 'description-error description-help' : 'description-help';
  return `<label for="description">${t.html('subscription.description.label')}</label>
<input type="text" id="description" name="description" maxlength="200" value="${escapeHtml(value)}" aria-describedby="${described}"${error ? ' aria-invalid="true"' : ''}>
<p class="muted" id="description-help">${t.html('subscription.description.help')}</p>
${error ? `<p class="error" role="alert" id="description-error">${escapeHtml(error)}</p>` : ''}`;
}

export function secretView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    subscription: { id: string; topic: string; appName: string };
    secret: string;
    graceUntil: string | null;
    rotated: boolean;
    now: Date;
  },
): string {
  const base = webhooksBase(input.store.id);
  const back = `${base}/subscriptions/${encodeURIComponent(input.subscription.id)}`;
  const grace =
    input.graceUntil && Date.parse(input.graceUntil) > input.now.getTime()
      ? `<p>${t.html('rotated.graceUntil', { until: formatConsoleTime(t, input.graceUntil), remaining: { html: countdown(input.graceUntil, input.now) } })}</p>`
      : `<p>${t.html('rotated.noGrace')}</p>`;
  return `${crumbs(t, input.store, t.text(input.rotated ? 'rotated.title' : 'secret.title'))}
<h1>${t.html(input.rotated ? 'rotated.title' : 'secret.title')}</h1>
<p>${t.html('secret.for', { topic: topicLabel(t, input.subscription.topic), app: input.subscription.appName })}</p>
${grace}
<label for="new-secret">${t.html(input.rotated ? 'rotated.label' : 'secret.label')}</label>
<input type="text" id="new-secret" readonly value="${escapeHtml(input.secret)}" autocomplete="off" spellcheck="false">
<button type="button" class="link copy" data-copy="${escapeHtml(input.secret)}" data-copied="${escapeHtml(t.text('webhooks.copied'))}" hidden>${t.html('secret.copy')}</button>
<p><a href="${back}">${t.html('console.back', { place: t.text('webhooks.subscriptionName', { topic: topicLabel(t, input.subscription.topic), app: input.subscription.appName }) })}</a></p>`;
}

/**
 * What a secret is shown behind (D98): the question, what showing it means and,
 * when the seller signed in longer ago than the re-authentication window, their
 * password. Its button posts to the reveal; it is not styled as destructive, since
 * showing a secret changes nothing.
 */
export function revealConfirmView(
  t: Translator,
  input: {
    action: string;
    csrf: string;
    back: string;
    rotated: boolean;
    /** Minutes of the re-authentication window when the password is asked for; null when it is not. */
    reauthMinutes: number | null;
    error: string | null;
  },
): string {
  const question = t.html(input.rotated ? 'rotated.ready' : 'subscription.confirm.reveal');
  const effect = t.html(input.rotated ? 'rotated.readyEffect' : 'subscription.confirm.revealEffect');
  const error = input.error ? `<p class="error" role="alert" id="reveal-error">${escapeHtml(input.error)}</p>` : '';
  const password =
    input.reauthMinutes === null
      ? ''
      : `<p id="reveal-reauth">${t.html('secret.reauth.text', { minutes: input.reauthMinutes })}</p>
<label for="password">${t.html('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus aria-describedby="reveal-reauth${input.error ? ' reveal-error' : ''}">`;
  return `<h1>${question}</h1>
<p>${effect}</p>
${error}
<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields({ csrf: input.csrf, confirmed: '1', ...(input.rotated ? { rotated: '1' } : {}) })}
${password}
<div class="actions"><button type="submit">${t.html(input.rotated ? 'rotated.show' : 'subscription.reveal')}</button>
<a href="${escapeHtml(input.back)}">${t.html('confirm.cancel')}</a></div>
</form>`;
}

export function newEndpointView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    apps: Array<{ clientId: string; name: string }>;
    topics: readonly string[];
    csrf: string;
    values: { app: string; url: string; topics: string[]; description: string };
    error: string | null;
  },
): string {
  const base = webhooksBase(input.store.id);
  const error = input.error ? `<p class="error" role="alert" id="new-error">${escapeHtml(input.error)}</p>` : '';
  const apps = input.apps
    .map(
      (a) =>
        `<option value="${escapeHtml(a.clientId)}"${a.clientId === input.values.app ? ' selected' : ''}>${escapeHtml(a.name)}</option>`,
    )
    .join('');
  const topics = input.topics
    .map(
      (topic, i) =>
        `<li><input type="checkbox" id="topic-${i}" name="topics" value="${escapeHtml(topic)}"${input.values.topics.includes(topic) ? ' checked' : ''}> <label for="topic-${i}" class="inline-label">${escapeHtml(topicLabel(t, topic))} <code>${escapeHtml(topic)}</code></label></li>`,
    )
    .join('');
  return `${crumbs(t, input.store, t.text('endpoint.title'))}
<h1>${t.html('endpoint.title')}</h1>
<p>${t.html('endpoint.intro')}</p>
${error}
${
  input.apps.length === 0
    ? `<p>${t.html('endpoint.noApps')}</p>`
    : `<form method="post" action="${base}/subscriptions/new">
${hiddenFields({ csrf: input.csrf })}
<label for="app">${t.html('webhooks.col.app')}</label>
<select id="app" name="app">${apps}</select>
<label for="url">${t.html('subscription.url')}</label>
<input type="url" id="url" name="url" required maxlength="2048" placeholder="https://" value="${escapeHtml(input.values.url)}"${input.error ? ' aria-describedby="new-error"' : ''}>
<fieldset><legend>${t.html('endpoint.topics')}</legend><ul class="plain">${topics}</ul></fieldset>
${descriptionField(t, input.values.description, null)}
<div class="actions"><button type="submit">${t.html('endpoint.create')}</button> <a href="${base}">${t.html('confirm.cancel')}</a></div>
</form>`
}`;
}

/** The confirmation page a form without JavaScript lands on (the same question as the dialog). */
export function confirmPageView(
  t: Translator,
  input: {
    question: string;
    effect: string;
    yes: string;
    action: string;
    csrf: string;
    back: string;
    fields: Record<string, string>;
    /** A destruction: its button takes the danger colour. */
    danger?: boolean;
  },
): string {
  return `<h1>${escapeHtml(input.question)}</h1>
<p>${escapeHtml(input.effect)}</p>
<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields({ csrf: input.csrf, ...input.fields, confirmed: '1' })}
<div class="actions"><button type="submit"${input.danger ? ' class="danger"' : ''}>${escapeHtml(input.yes)}</button>
<a href="${escapeHtml(input.back)}">${t.html('confirm.cancel')}</a></div>
</form>`;
}
