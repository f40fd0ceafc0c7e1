import type { StoreWithSeller } from '../accounts/index.js';
import { escapeHtml } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { consoleTimeHtml, topicLabel } from './console-kit.js';
import { operatorNav } from './operator-views.js';
import { dataTable } from './table-views.js';
import {
  type AttemptView,
  type DeliveryRowView,
  deliveryPill,
  type EndpointView,
  idTail,
  shownState,
  subscriptionPill,
} from './webhook-views.js';

/**
 * HTML of the operator's read-only view of a store's webhooks (D157): its
 * subscriptions and their state, its recent deliveries, one delivery's
 * attempts. Built only from what support needs: states, times, status codes
 * and error text, URLs masked (D65); never a secret, a signature, an event's
 * body or a receiver's answer, which stay the seller's to see.
 */

function storeBase(storeId: string): string {
  return `/console/operator/stores/${encodeURIComponent(storeId)}/webhooks`;
}

function crumbs(t: Translator, store: StoreWithSeller, last?: string): string {
  const items = [
    `<li><a href="/console/operator">${t.html('operator.accounts.title')}</a></li>`,
    `<li><a href="/console/operator/sellers/${encodeURIComponent(store.sellerId)}">${escapeHtml(store.sellerName)}</a></li>`,
    last
      ? `<li><a href="${storeBase(store.id)}">${t.html('operator.webhooks.title', { store: store.name })}</a></li><li aria-current="page">${escapeHtml(last)}</li>`
      : `<li aria-current="page">${t.html('operator.webhooks.title', { store: store.name })}</li>`,
  ];
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.crumbs'))}"><ol>${items.join('')}</ol></nav>`;
}

/** The delivery states the store's list can be narrowed to. */
export type OperatorDeliveryFilter = 'all' | 'failed';

export function operatorStoreWebhooksView(
  t: Translator,
  input: {
    store: StoreWithSeller;
    subscriptions: EndpointView[];
    deliveries: DeliveryRowView[];
    filter: OperatorDeliveryFilter;
  },
): string {
  const base = storeBase(input.store.id);
  const since = (s: EndpointView) =>
    s.state === 'disabled' && s.disabledAt
      ? t.html('operator.webhooks.disabledAt', { when: { html: consoleTimeHtml(t, s.disabledAt) } })
      : s.failingSince
        ? t.html('operator.webhooks.failingSince', { when: { html: consoleTimeHtml(t, s.failingSince) } })
        : '—';
  const subscriptions = input.subscriptions.map((s) => [
    escapeHtml(s.appName),
    `${escapeHtml(topicLabel(t, s.topic))} <code>${escapeHtml(s.topic)}</code>`,
    escapeHtml(s.version),
    `<code class="url">${escapeHtml(s.url)}</code>`,
    subscriptionPill(t, s.state),
    t.number(s.failureStreak),
    since(s),
  ]);
  const deliveries = input.deliveries.map((d) => [
    `<a href="${base}/deliveries/${encodeURIComponent(d.id)}" aria-label="${escapeHtml(t.text('webhooks.open', { id: d.id }))}"><code>${escapeHtml(idTail(d.id))}</code></a>`,
    consoleTimeHtml(t, d.createdAt),
    escapeHtml(topicLabel(t, d.topic)),
    d.endpoint ? escapeHtml(d.endpoint.appName) : t.html('webhooks.endpointGone'),
    deliveryPill(t, shownState(d)),
    t.number(d.attempts),
    d.lastStatusCode === null ? '—' : String(d.lastStatusCode),
  ]);
  const filterLink = (filter: OperatorDeliveryFilter, key: 'webhooks.filter.all' | 'webhooks.filter.failed') =>
    `<li><a href="${base}${filter === 'failed' ? '?status=failed' : ''}#deliveries"${input.filter === filter ? ' aria-current="page"' : ''}>${t.html(key)}</a></li>`;
  return `${operatorNav(t, 'accounts')}
${crumbs(t, input.store)}
<h1>${t.html('operator.webhooks.title', { store: input.store.name })}</h1>
<dl class="facts">
<dt>${t.html('operator.col.storeId')}</dt><dd><code>${escapeHtml(input.store.id)}</code></dd>
<dt>${t.html('operator.col.seller')}</dt><dd><a href="/console/operator/sellers/${encodeURIComponent(input.store.sellerId)}">${escapeHtml(input.store.sellerName)}</a></dd>
</dl>
<p class="muted">${t.html('operator.webhooks.readOnly')}</p>
<h2 id="subscriptions">${t.html('webhooks.subscriptions')}</h2>
${
  subscriptions.length === 0
    ? `<p>${t.html('webhooks.noSubscriptions')}</p>`
    : dataTable({
        labelledBy: 'subscriptions',
        label: t.text('webhooks.subscriptions'),
        columns: [
          { label: t.text('webhooks.col.app') },
          { label: t.text('webhooks.col.topic') },
          { label: t.text('webhooks.col.version') },
          { label: t.text('webhooks.col.url') },
          { label: t.text('webhooks.col.state') },
          { label: t.text('webhooks.col.streak'), num: true },
          { label: t.text('operator.webhooks.col.since') },
        ],
        rows: subscriptions,
      })
}
<h2 id="deliveries">${t.html('operator.webhooks.recent')}</h2>
<nav aria-label="${escapeHtml(t.text('webhooks.filter.status'))}"><ul class="plain inline-list">${filterLink('all', 'webhooks.filter.all')}${filterLink('failed', 'webhooks.filter.failed')}</ul></nav>
${
  deliveries.length === 0
    ? `<p>${t.html('webhooks.noDeliveries')}</p>`
    : dataTable({
        labelledBy: 'deliveries',
        label: t.text('operator.webhooks.recent'),
        columns: [
          { label: 'ID' },
          { label: t.text('webhooks.col.created') },
          { label: t.text('webhooks.col.topic') },
          { label: t.text('webhooks.col.app') },
          { label: t.text('webhooks.col.status') },
          { label: t.text('webhooks.col.attempts'), num: true },
          { label: t.text('webhooks.col.lastStatus'), num: true },
        ],
        rows: deliveries,
      })
}`;
}

export function operatorDeliveryView(
  t: Translator,
  input: { store: StoreWithSeller; delivery: DeliveryRowView; attempts: AttemptView[] },
): string {
  const d = input.delivery;
  const e = d.endpoint;
  const attempts = input.attempts.map((a, i) => [
    String(i + 1),
    consoleTimeHtml(t, a.started_at),
    `<span class="pill${a.outcome === 'failed' ? ' bad' : ''}">${t.html(`delivery.outcome.${a.outcome}`)}</span>`,
    a.status_code === null ? '—' : String(a.status_code),
    t.html('delivery.latency', { ms: a.duration_ms }),
    a.error ? `<code>${escapeHtml(a.error)}</code>` : '',
  ]);
  return `${operatorNav(t, 'accounts')}
${crumbs(t, input.store, idTail(d.id))}
<h1>${t.html('delivery.title', { id: d.id })}</h1>
<dl class="facts">
<dt>${t.html('delivery.id')}</dt><dd><code>${escapeHtml(d.id)}</code></dd>
<dt>${t.html('delivery.eventId')}</dt><dd><code>${escapeHtml(d.eventId)}</code></dd>
<dt>${t.html('webhooks.col.topic')}</dt><dd>${escapeHtml(topicLabel(t, d.topic))} <code>${escapeHtml(d.topic)}</code></dd>
<dt>${t.html('webhooks.col.created')}</dt><dd>${consoleTimeHtml(t, d.createdAt)}</dd>
<dt>${t.html('webhooks.col.status')}</dt><dd>${deliveryPill(t, shownState(d))}</dd>
${d.nextAttemptAt ? `<dt>${t.html('operator.delivery.next')}</dt><dd>${consoleTimeHtml(t, d.nextAttemptAt)}</dd>` : ''}
${
  e
    ? `<dt>${t.html('webhooks.col.app')}</dt><dd>${escapeHtml(e.appName)}</dd>
<dt>${t.html('delivery.subscription')}</dt><dd>${escapeHtml(topicLabel(t, e.topic))} ${subscriptionPill(t, e.state)}</dd>
<dt>URL</dt><dd><code>${escapeHtml(e.url)}</code></dd>`
    : `<dt>${t.html('delivery.subscription')}</dt><dd>${t.html('webhooks.endpointGone')}</dd>`
}
</dl>
<p class="muted">${t.html('operator.delivery.leftOut')}</p>
${
  attempts.length === 0
    ? `<p>${t.html('delivery.noAttempts')}</p>`
    : dataTable({
        caption: t.text('delivery.attempts'),
        label: t.text('delivery.attempts'),
        columns: [
          { label: t.text('delivery.col.attempt'), num: true },
          { label: t.text('delivery.col.started') },
          { label: t.text('delivery.col.outcome') },
          { label: t.text('delivery.col.status'), num: true },
          { label: t.text('delivery.col.latency'), num: true },
          { label: t.text('delivery.col.error') },
        ],
        rows: attempts,
      })
}`;
}

/** What the operator's search found besides sellers and apps: stores by name or id, and a delivery by its id. */
export function operatorFoundView(
  t: Translator,
  input: {
    search: string;
    stores: { stores: StoreWithSeller[]; more: boolean };
    delivery: { id: string; store: StoreWithSeller } | null;
  },
): string {
  if (!input.search) return '';
  const delivery = input.delivery
    ? `<h2 id="found-delivery">${t.html('operator.found.delivery')}</h2>
<p>${t.html('operator.found.deliveryOf', {
        id: { html: `<code>${escapeHtml(input.delivery.id)}</code>` },
        store: { html: `<a href="${storeBase(input.delivery.store.id)}">${escapeHtml(input.delivery.store.name)}</a>` },
        seller: input.delivery.store.sellerName,
      })} <a href="${storeBase(input.delivery.store.id)}/deliveries/${encodeURIComponent(input.delivery.id)}">${t.html('operator.found.openDelivery')}</a></p>`
    : '';
  const rows = input.stores.stores.map((store) => [
    `<a href="${storeBase(store.id)}">${t.html('operator.webhooks.title', { store: store.name })}</a>`,
    `<code>${escapeHtml(store.id)}</code>`,
    `<a href="/console/operator/sellers/${encodeURIComponent(store.sellerId)}">${escapeHtml(store.sellerName)}</a>`,
    consoleTimeHtml(t, store.createdAt),
  ]);
  return `${delivery}
<h2 id="stores">${t.html('operator.stores')}</h2>
<p class="muted">${t.html('operator.found.stores', { count: rows.length, more: input.stores.more ? 'yes' : 'no' })}</p>
${
  rows.length === 0
    ? ''
    : dataTable({
        labelledBy: 'stores',
        label: t.text('operator.stores'),
        columns: [
          { label: t.text('operator.col.store') },
          { label: t.text('operator.col.storeId') },
          { label: t.text('operator.col.seller') },
          { label: t.text('records.field.created_at') },
        ],
        rows,
      })
}`;
}
