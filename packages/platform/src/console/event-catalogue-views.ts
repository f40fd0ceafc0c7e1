import type { WebhookChangeStatus, WebhookMessage } from '@feira/contract';
import type { TSchema } from '@sinclair/typebox';
import { escapeHtml } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { storePath, topicLabel } from './console-kit.js';
import { crumbs } from './console-views.js';

/**
 * The event catalogue's page (D153): the headers of each version, then each
 * topic with the request that reads its record, its event types, its message
 * schema and an example per event type. Schemas and examples are code (JSON)
 * and stay as they are in both languages; every sentence comes from the
 * catalogues.
 */

/** One topic of the catalogue (event-catalogue-console.ts builds it): where its records are read, its schema, an example per event type. */
export interface CatalogueTopic {
  topic: string;
  scope: string;
  /** The record's read path with `{id}` where the id goes (`data.resource`). */
  readPath: string;
  schema: TSchema;
  examples: ReadonlyArray<{ status: WebhookChangeStatus; message: WebhookMessage }>;
}

/** A block of JSON, indented, named by its summary; scrollable by keyboard when wider than the screen. */
function json(id: string, value: unknown, labelledBy: string): string {
  return `<pre id="${id}" tabindex="0" aria-labelledby="${labelledBy}"><code>${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
}

/** The anchor of a topic, and of one of its event types (the subscription page links there). */
export function catalogueAnchor(topic: string, status?: string): string {
  return `event-${topic}${status ? `-${status}` : ''}`;
}

function versionsTable(t: Translator): string {
  const code = (names: string[]) => names.map((name) => `<code>${name}</code>`).join(' ');
  const row = (version: string, headers: string, signing: string) =>
    `<tr><th scope="row">${version}</th><td>${headers}</td><td>${signing}</td></tr>`;
  return `<h2 id="versions">${t.html('catalogue.versions')}</h2>
<div class="table-wrap"><table aria-labelledby="versions"><thead><tr><th scope="col">${t.html('webhooks.col.version')}</th><th scope="col">${t.html('catalogue.col.headers')}</th><th scope="col">${t.html('catalogue.col.signing')}</th></tr></thead><tbody>
${row('v0', code(['X-Webhook-Id']), t.html('catalogue.v0'))}
${row('v1', code(['X-Webhook-Id', 'X-Timestamp', 'X-Signature-256']), t.html('catalogue.v1'))}
${row(t.html('catalogue.standard'), code(['webhook-id', 'webhook-timestamp', 'webhook-signature']), t.html('catalogue.standardSigning'))}
</tbody></table></div>`;
}

function topicSection(t: Translator, entry: CatalogueTopic): string {
  const anchor = catalogueAnchor(entry.topic);
  const label = topicLabel(t, entry.topic);
  const types = entry.examples.map((e) => `<li>${t.html(`catalogue.status.${e.status}`)} <code>${e.status}</code></li>`).join('');
  const examples = entry.examples
    .map((e, i) => {
      const id = catalogueAnchor(entry.topic, e.status);
      return `<details id="${id}"${i === 0 ? ' open' : ''}><summary id="${id}-title">${t.html('catalogue.example', { type: { html: `${t.html(`catalogue.status.${e.status}`)} <code>${e.status}</code>` } })}</summary>
${json(`${id}-json`, e.message, `${id}-title`)}
</details>`;
    })
    .join('\n');
  return `<section aria-labelledby="${anchor}">
<h2 id="${anchor}">${escapeHtml(label)} <code>${escapeHtml(entry.topic)}</code></h2>
<p>${t.html('catalogue.readWith', { request: { html: `<code>GET ${escapeHtml(entry.readPath)}</code>` }, scope: { html: `<code>${escapeHtml(entry.scope)}</code>` } })}</p>
<h3>${t.html('catalogue.types')}</h3>
<ul>${types}</ul>
<details><summary id="${anchor}-schema-title">${t.html('catalogue.schema')}</summary>
${json(`${anchor}-schema`, entry.schema, `${anchor}-schema-title`)}
</details>
<h3>${t.html('catalogue.examples')}</h3>
${examples}
</section>`;
}

export function eventCatalogueView(
  t: Translator,
  input: { store: { id: string; name: string }; topics: readonly CatalogueTopic[] },
): string {
  const base = storePath(input.store.id, '/webhooks');
  const toc = input.topics
    .map((e) => `<li><a href="#${catalogueAnchor(e.topic)}">${escapeHtml(topicLabel(t, e.topic))}</a></li>`)
    .join('');
  return `${crumbs(
    [
      { href: '/console', label: t.text('console.stores.title') },
      { href: base, label: t.text('webhooks.title', { store: input.store.name }) },
      { label: t.text('catalogue.title') },
    ],
    t,
  )}
<h1>${t.html('catalogue.title')}</h1>
<p>${t.html('catalogue.intro')}</p>
<p>${t.html('catalogue.generated', { link: { html: `<a href="/docs">${t.html('catalogue.docs')}</a>` } })} ${t.html('catalogue.exampleNote')}</p>
<nav aria-label="${escapeHtml(t.text('catalogue.topics'))}"><ul class="inline-list">${toc}</ul></nav>
${versionsTable(t)}
${input.topics.map((entry) => topicSection(t, entry)).join('\n')}`;
}
