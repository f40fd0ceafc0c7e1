import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { servesSecrets } from '../http/secret-page.js';

/**
 * The console's one stylesheet and one progressive-enhancement module, served
 * by the platform (CSP `script-src 'self'`; no CDN, no bundler). Every page
 * works without the module; with it, a delivery's attempts update live from
 * server-sent events. Its size is held under the budget by console-budget.test.ts.
 */
const CONSOLE_CSS = `
/* Design tokens: spacing scale, type scale and one colour per delivery state. Danger is for destruction only. */
:root{--s1:.25rem;--s2:.5rem;--s3:.75rem;--s4:1rem;--s5:1.5rem;--s6:2rem;
--t-xs:.75rem;--t-sm:.875rem;--t-md:1rem;--t-lg:1.125rem;--t-xl:1.5rem;
--st-pending:#1d4ed8;--st-delivered:#15703a;--st-failing:#8a4b00;--st-dead:#9d174d;--st-disabled:#5b6370}
@media (prefers-color-scheme:dark){:root{--st-pending:#93c5fd;--st-delivered:#86efac;--st-failing:#fcd34d;--st-dead:#f9a8d4;--st-disabled:#a9b0bb}}
body.wide{display:block;align-items:initial}
body.wide h1{font-size:var(--t-xl);line-height:1.25;margin:0 0 var(--s3)}
body.wide h2{font-size:var(--t-lg);margin:var(--s5) 0 var(--s2)}
body.wide h3{font-size:var(--t-md);margin:var(--s4) 0 var(--s2)}
.skip{position:absolute;left:-999px}.skip:focus{left:var(--s4);top:var(--s4);background:var(--card);padding:var(--s2);z-index:2}
header.bar{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:center;justify-content:space-between;padding:var(--s3) var(--s5);background:var(--card);border-bottom:1px solid var(--border)}
header.bar .brand{font-weight:700;font-size:var(--t-lg);color:var(--fg);text-decoration:none}
header.bar nav.lang{margin:0}
header.bar form{margin:0;display:flex;align-items:baseline;gap:var(--s2)}
header.bar a.tz{font-size:var(--t-sm)}
body.wide main{width:auto;max-width:72rem;margin:var(--s5) auto;border-radius:12px}
nav.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:var(--s2);padding:0;margin:0 0 var(--s4);font-size:var(--t-sm)}
nav.crumbs li{margin:0}nav.crumbs li+li::before{content:"/";margin-right:var(--s2);color:var(--muted)}
nav.sections ul{list-style:none;display:flex;gap:var(--s4);padding:0 0 var(--s1);margin:0 0 var(--s4);overflow-x:auto;white-space:nowrap;scrollbar-width:thin}
nav.sections li{margin:0}
nav.sections [aria-current]{font-weight:700;color:var(--fg)}
.table-wrap{overflow-x:auto;margin:var(--s2) 0 var(--s5)}
table{border-collapse:collapse;width:100%;font-size:var(--t-sm)}
caption{text-align:left;font-weight:600;padding:var(--s1) 0}
th,td{text-align:left;padding:var(--s2) var(--s3);border-bottom:1px solid var(--border);vertical-align:top}
th{font-weight:600;color:var(--muted)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.nowrap,td.nowrap code{white-space:nowrap}
td code.url{overflow-wrap:normal;word-break:normal}
/* A topic's slug beside its name: the pair may wrap between them, the slug never inside itself. */
td code.slug{white-space:nowrap;overflow-wrap:normal}
td ul{margin:0;padding-left:var(--s4)}
/* Status pills: each state its own colour and mark, so colour is never the only signal. */
.pill{display:inline-flex;align-items:center;gap:var(--s1);padding:0 var(--s2);border-radius:999px;border:1px solid currentColor;font-size:var(--t-xs);font-weight:600;line-height:1.6;white-space:nowrap}
.pill::before{content:"";width:.5em;height:.5em;border-radius:50%;background:currentColor}
.pill.bad{color:var(--st-dead)}
.pill.st-pending{color:var(--st-pending)}.pill.st-pending::before{background:transparent;border:1.5px solid currentColor;box-sizing:border-box}
.pill.st-succeeded,.pill.st-active{color:var(--st-delivered)}
.pill.st-failing{color:var(--st-failing)}.pill.st-failing::before{border-radius:0;transform:rotate(45deg)}
.pill.st-dead{color:var(--st-dead)}.pill.st-dead::before{border-radius:1px}
.pill.st-disabled{color:var(--st-disabled);border-style:dashed}.pill.st-disabled::before{height:2px;border-radius:0}
/* A test delivery's tag (D153): a label, not a state, so neither a pill nor a state's colour. */
.tag{display:inline-block;padding:0 var(--s2);border:1px dashed var(--fg);border-radius:4px;font-size:var(--t-xs);font-weight:600;line-height:1.6;text-transform:uppercase;letter-spacing:.04em;vertical-align:middle}
form.inline{display:flex;gap:var(--s2);align-items:center;flex-wrap:wrap}
form.inline label{margin:0}
form.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:var(--s2) var(--s4);align-items:end;margin:var(--s2) 0 var(--s4)}form.filters label{display:block;margin:0 0 var(--s1)}form.filters select,form.filters input{width:100%;box-sizing:border-box}
select{font:inherit;color:inherit;background:var(--card);border:1px solid var(--border);border-radius:8px;padding:var(--s2)}
select,input,textarea{max-width:100%}
input:not([type]),input[type=search],input[type=datetime-local],input[type=url],input[type=email],input[type=number],input[type=date],textarea{padding:var(--s2) var(--s3);font:inherit;color:inherit;background:transparent;border:1px solid var(--border);border-radius:8px}
input[type=url],textarea{width:100%}
.field-row{display:grid;grid-template-columns:minmax(0,1fr) 7rem;grid-template-rows:auto auto;grid-auto-flow:column;gap:0 var(--s3);margin:var(--s2) 0}.field-row label{margin:var(--s2) 0 var(--s1)}.field-row input{width:100%}
#preview-form #zipcode{width:12rem}#preview-form button{margin-top:var(--s4)}
pre{overflow-x:auto}code{overflow-wrap:anywhere}
/* A label beside its control (checkboxes, radios): one line, the control first. */
label.inline-label{display:inline;font-weight:400;margin:0}
ul.plain{list-style:none;padding:0}ul.plain li{margin:var(--s1) 0}
ul.plain li:has(> input){display:flex;align-items:center;gap:var(--s2)}
/* Action bars: every form, button, label and select on one baseline. */
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s3);margin-top:var(--s4)}
.actions>form{margin:0}
.cell-form{display:inline-flex;flex-wrap:wrap;align-items:center;gap:var(--s2);margin:0 var(--s1) var(--s1) 0}
.cell-form label{display:inline;margin:0;font-weight:400;font-size:var(--t-sm)}
.cell-form select{padding:var(--s1) var(--s2);font-size:var(--t-sm)}
.row-actions{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s3)}.row-actions .cell-form{margin:0}
.cell-form button,td button{padding:var(--s1) var(--s3);font-size:var(--t-sm)}
button.danger{background:var(--danger);border-color:var(--danger);color:var(--bg)}
button.danger.secondary{background:transparent;color:var(--danger)}
.notice{border-left:4px solid var(--accent);padding:var(--s2) var(--s3);background:var(--bg)}
.notice.warn{border-left-color:var(--st-failing)}
p.error[role=alert]{border-left:4px solid var(--danger);padding:var(--s2) var(--s3);background:var(--bg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:var(--s1) var(--s4);margin:0 0 var(--s4)}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
figure{margin:var(--s4) 0}.chart{min-height:2rem;overflow:hidden}figcaption{font-size:var(--t-sm);color:var(--muted)}
.chart .uplot{margin-bottom:var(--s5)}.chart .u-title{font-size:var(--t-md);font-weight:600}.chart .u-legend{font-size:var(--t-sm);margin-top:var(--s2)}
details{margin:var(--s2) 0}summary{cursor:pointer}
dialog.confirm{max-width:min(32rem,calc(100vw - 2rem));border:1px solid var(--border);border-radius:12px;background:var(--card);color:var(--fg);padding:var(--s5)}
dialog.confirm::backdrop{background:rgb(0 0 0 / .45)}
dialog.confirm h2{margin-top:0}
ul.inline-list{display:flex;flex-wrap:wrap;gap:var(--s4);list-style:none;padding:0}
.paging{display:flex;flex-wrap:wrap;gap:var(--s4);align-items:center}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
@media (max-width:37.5rem){
header.bar{display:grid;grid-template-columns:1fr auto;gap:var(--s1) var(--s3);padding:var(--s2) var(--s4)}
header.bar nav.lang{grid-row:2;justify-content:flex-start;gap:var(--s3)}
header.bar a.tz{grid-row:2;justify-self:end}
header.bar form .muted{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
body.wide main{margin:var(--s3) auto;padding:var(--s4)}
.table-wrap{overflow-x:visible}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th[scope=row]{display:block;width:100%}
table.stack tr{border:1px solid var(--border);border-radius:8px;margin:0 0 var(--s3);padding:var(--s1) var(--s2)}
table.stack td,table.stack th[scope=row]{border:0;padding:var(--s1) 0;text-align:left}
table.stack td[data-label]::before{content:attr(data-label);display:block;font-size:var(--t-xs);color:var(--muted);font-weight:600}
table.stack td.num{text-align:left}
table.stack td.nowrap,table.stack td.nowrap code{white-space:normal}
table.stack td.opt:empty{display:none}
}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}}
/* Shipping settings forms (shipping-settings-views.ts): a checkbox beside its label, a row per method or centre. */
section.settings-part{border-top:1px solid var(--border);margin-top:1.5rem}
.settings-form fieldset label{margin:0}
.method-row{display:grid;grid-template-columns:auto 1fr auto 4.5rem;gap:.5rem .75rem;align-items:center;margin:.5rem 0}
.method-row label.order-label{color:var(--muted);font-size:.85rem}
.centre-row{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0 1rem}
.centre-row label{margin:.5rem 0 .25rem}
.settings-form input[type=url]{width:100%}
.settings-form input[type=checkbox]+label{display:inline;margin:0 0 0 .35rem}
.freight-unused form{margin:.5rem 0 0}
@media (max-width:37.5rem){.method-row{grid-template-columns:auto 1fr 4.5rem}.method-row label.order-label{grid-column:2}.centre-row{grid-template-columns:1fr}}
`;

const CONSOLE_JS = `// Feira console: live updates over server-sent events (the pages work without this file).
// Tables rendered without per-cell labels get them from their header cells, so they stack as cards on a
// narrow screen; a wrapper that scrolls becomes a named, focusable region (table-views.ts renders both itself).
function stackTables(root) {
  for (const table of root.querySelectorAll('.table-wrap table:not(.stack)')) {
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.children].forEach((cell, i) => { if (heads[i] && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', heads[i]); });
    }
    table.classList.add('stack');
    const wrap = table.closest('.table-wrap');
    if (wrap && !wrap.hasAttribute('tabindex')) {
      wrap.tabIndex = 0;
      wrap.setAttribute('role', 'region');
      const name = table.querySelector('caption')?.textContent || document.getElementById(table.getAttribute('aria-labelledby') || '')?.textContent || '';
      if (name) wrap.setAttribute('aria-label', name.trim());
    }
  }
}
stackTables(document);
for (const region of document.querySelectorAll('[data-live]')) {
  const source = new EventSource(region.getAttribute('data-live'));
  // Connected: from here every change reaches the page (tests wait for this mark).
  source.addEventListener('open', () => region.setAttribute('data-connected', ''));
  // 'attempts' (a delivery's page) and 'deliveries' (a store's webhooks page) carry the region's new HTML.
  for (const name of ['attempts', 'deliveries']) {
    source.addEventListener(name, (event) => {
      const template = document.createElement('template');
      template.innerHTML = JSON.parse(event.data).html;
      region.replaceChildren(template.content);
      stackTables(region);
    });
  }
}
// Confirmations (D69): a form marked data-confirm asks in a <dialog> first; "confirmed" goes with the
// form only when the seller says yes. Without this file the server answers such a form with a confirmation page.
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (form.querySelector('input[name="confirmed"]')) return;
    event.preventDefault();
    const dialog = document.createElement('dialog');
    dialog.className = 'confirm';
    const id = 'confirm-' + Math.random().toString(36).slice(2);
    dialog.setAttribute('aria-labelledby', id + '-q');
    dialog.setAttribute('aria-describedby', id + '-e');
    const question = document.createElement('h2');
    question.id = id + '-q';
    question.textContent = form.dataset.confirm;
    const effect = document.createElement('p');
    effect.id = id + '-e';
    effect.textContent = form.dataset.confirmEffect || '';
    const choices = document.createElement('form');
    choices.method = 'dialog';
    choices.className = 'actions';
    const no = document.createElement('button');
    no.value = 'cancel';
    no.className = 'secondary';
    no.textContent = form.dataset.confirmNo;
    const yes = document.createElement('button');
    yes.value = 'yes';
    // Only a destruction (marked data-confirm-tone="danger") is confirmed by a danger-coloured button.
    if (form.dataset.confirmTone === 'danger') yes.className = 'danger';
    yes.textContent = form.dataset.confirmYes;
    choices.append(no, yes);
    dialog.append(question, effect, choices);
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (dialog.returnValue !== 'yes') return;
      const confirmed = document.createElement('input');
      confirmed.type = 'hidden';
      confirmed.name = 'confirmed';
      confirmed.value = '1';
      form.append(confirmed);
      form.submit();
    });
    dialog.showModal();
    no.focus();
  });
}
// The secret rotation's grace hour, counted down (the server rendered the starting value).
const countdowns = document.querySelectorAll('[data-countdown]');
if (countdowns.length > 0) {
  // Counted from the server's clock at render time, so a skewed browser clock does not change it.
  const loadedAt = Date.now();
  const tick = () => {
    for (const element of countdowns) {
      const serverNow = Date.parse(element.getAttribute('data-now')) + (Date.now() - loadedAt);
      const left = Math.max(0, Math.round((Date.parse(element.getAttribute('data-countdown')) - serverNow) / 1000));
      element.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    }
  };
  setInterval(tick, 1000);
}
`;

/**
 * The chart pages' shared module: time-series charts drawn with uPlot from
 * the page's JSON data block, with time axes and legends in the page's
 * language, colours for light and dark, and resizing with the window.
 * `drawCharts(host, labels, x, charts)`: x in Unix seconds; each chart is
 * `{ title, height, series: [uPlot series], values: [arrays], unit? }`.
 */
const CHARTS_JS = `import uPlot from './uplot.esm.js';
// Every time in the zone the page names (the console header's data-time-zone), like the tables beside the charts (D67).
const zone = document.querySelector('[data-time-zone]')?.getAttribute('data-time-zone') || 'UTC';
export function drawCharts(host, labels, x, charts) {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const axis = { stroke: dark ? '#cbd5e1' : '#334155', grid: { stroke: dark ? '#334155' : '#e2e8f0' } };
  const lang = document.documentElement.lang || 'en';
  const short = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone });
  const full = new Intl.DateTimeFormat(lang, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone });
  const numbers = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
  // With no point under the cursor the legend shows the latest point, not placeholders.
  const last = x.length - 1;
  const time = { label: labels.time, value: (u, v, si, idx) => { const at = idx == null ? x[last] : v; return at == null ? '—' : full.format(new Date(at * 1000)); } };
  const timeAxis = { ...axis, values: (u, splits) => splits.map((v) => short.format(new Date(v * 1000))) };
  const valueAxis = { ...axis, values: (u, splits) => splits.map((v) => numbers.format(v)) };
  const width = () => Math.max(280, host.clientWidth);
  const drawn = charts.map((c) => new uPlot({
    width: width(), height: c.height, title: c.title,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
    series: [time, ...c.series.map((s) => ({ value: (u, v, si, idx) => { const at = idx == null ? u.data[si][last] : v; return at == null ? '—' : numbers.format(at); }, ...s }))],
    axes: [timeAxis, c.unit ? { ...valueAxis, label: c.unit } : valueAxis],
  }, [x, ...c.values], host));
  addEventListener('resize', () => { for (const chart of drawn) chart.setSize({ width: width(), height: chart.height }); });
  // The drawn charts, for anyone scripting the page (the tests read a point's legend through them).
  host.charts = drawn;
  return drawn;
}
`;

/**
 * A console asset served twice (D68): under its plain path (`/console/assets/charts.js`,
 * cached five minutes, for old pages and tools) and under a content-hashed one
 * (`/console/assets/charts.3fa9c2d1e0.js`, cached a year, immutable), which the
 * pages link to. Each is compressed once at start (brotli and gzip) and sent
 * as the browser accepts. A module's `from './x.js'` naming another
 * registered asset is rewritten to that asset's hashed name, so a changed
 * uPlot or chart module changes every URL that leads to it.
 */
export interface ConsoleAsset {
  path: string;
  hashedPath: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
}

const ASSETS = new Map<string, ConsoleAsset>();
const ASSET_DIR = '/console/assets/';

/** The hashed URL of a registered asset (what pages link to), or the path itself. */
export function assetUrl(path: string): string {
  return ASSETS.get(path)?.hashedPath ?? path;
}

function prepareAsset(path: string, type: string, source: string): ConsoleAsset {
  const body = source.replace(/from '\.\/([A-Za-z0-9_.-]+)'/g, (whole, name: string) => {
    const target = ASSETS.get(`${ASSET_DIR}${name}`);
    return target ? `from './${target.hashedPath.slice(ASSET_DIR.length)}'` : whole;
  });
  const bytes = Buffer.from(body, 'utf8');
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  const dot = path.lastIndexOf('.');
  const asset: ConsoleAsset = {
    path,
    hashedPath: `${path.slice(0, dot)}.${hash}${path.slice(dot)}`,
    type,
    body: bytes,
    gzip: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  };
  ASSETS.set(path, asset);
  return asset;
}

/** The best encoding the request accepts among brotli, gzip and none (a `q=0` refuses one). */
function acceptedEncoding(header: string | string[] | undefined): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? (accepted.has('*') ? (accepted.get('*') as number) : 0)) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

function sendPrepared(asset: ConsoleAsset, cacheControl: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    reply
      .header('content-type', `${asset.type}; charset=utf-8`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', cacheControl)
      .header('vary', 'accept-encoding');
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.body);
  };
}

/** Registers an asset under its plain path (five minutes) and its hashed path (a year, immutable). */
export function serveAsset(app: FastifyInstance, path: string, type: string, source: string): ConsoleAsset {
  const asset = prepareAsset(path, type, source);
  app.get(path, { schema: { hide: true } }, sendPrepared(asset, 'public, max-age=300'));
  app.get(asset.hashedPath, { schema: { hide: true } }, sendPrepared(asset, 'public, max-age=31536000, immutable'));
  return asset;
}

/**
 * uPlot's minified build as an ES module: the IIFE build declares
 * `var uPlot` at its top level, which a module keeps in its own scope, so
 * exporting that binding is the whole wrapper (the package ships no minified
 * ESM build).
 */
async function uplotModule(): Promise<{ js: string; css: string }> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
  const [iife, css] = await Promise.all([
    readFile(join(dir, 'uPlot.iife.min.js'), 'utf8'),
    readFile(join(dir, 'uPlot.min.css'), 'utf8'),
  ]);
  return { js: `${iife}\nexport default uPlot;\n`, css };
}

/** The console's favicon: the brand's initial on its accent colour. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><path d="M10 8h13v4h-8.5v3.5H21v4h-6.5V25H10z" fill="#fff"/></svg>`;

/**
 * Compresses a console page (HTML) as the browser accepts, unless something
 * already did: pages are small but sent on every click (D68). A page that
 * shows a secret goes out as it is (http/secret-page.ts).
 */
export async function compressConsolePage(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string' || reply.getHeader('content-encoding')) return payload;
  // A page that shows a secret is never compressed (BREACH, D98).
  if (servesSecrets(reply)) return payload;
  if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  reply.header('vary', 'accept-encoding');
  if (!encoding) return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  return encoding === 'br'
    ? brotliCompressSync(payload, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
    : gzipSync(payload, { level: 6 });
}

export async function consoleAssets(app: FastifyInstance): Promise<void> {
  const uplot = await uplotModule();
  serveAsset(app, '/console/assets/console.css', 'text/css', CONSOLE_CSS);
  serveAsset(app, '/console/assets/uplot.css', 'text/css', uplot.css);
  serveAsset(app, '/console/assets/console.js', 'text/javascript', CONSOLE_JS);
  serveAsset(app, '/console/assets/uplot.esm.js', 'text/javascript', uplot.js);
  serveAsset(app, '/console/assets/charts.js', 'text/javascript', CHARTS_JS);
  const icon = prepareAsset('/console/assets/favicon.svg', 'image/svg+xml', FAVICON_SVG);
  for (const path of ['/favicon.svg', '/favicon.ico', icon.path]) {
    app.get(path, { schema: { hide: true } }, sendPrepared(icon, 'public, max-age=86400'));
  }
}
