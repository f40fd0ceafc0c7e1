import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The console's one stylesheet and one progressive-enhancement module, served
 * by the platform (CSP `script-src 'self'`; no CDN, no bundler). Every page
 * works without the module; with it, a delivery's attempts update live from
 * server-sent events. Its size is held under the budget by console-budget.test.ts.
 */
export const CONSOLE_CSS = `
body.wide{display:block;align-items:initial}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem;z-index:2}
header.bar{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--border)}
header.bar .brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none}
header.bar nav.lang{margin:0}
header.bar form{margin:0}
body.wide main{width:auto;max-width:72rem;margin:1.5rem auto;border-radius:12px}
nav.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.5rem;padding:0;margin:0 0 1rem;font-size:.9rem}
nav.crumbs li+li::before{content:"/";margin-right:.5rem;color:var(--muted)}
.table-wrap{overflow-x:auto;margin:.5rem 0 1.5rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--border);vertical-align:top}
th{font-weight:600;color:var(--muted)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pill{display:inline-block;padding:0 .5rem;border-radius:999px;border:1px solid var(--border);font-size:.8rem}
.pill.bad{color:var(--danger);border-color:var(--danger)}
form.inline{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}
form.inline label{margin:0}
select{font:inherit;color:inherit;background:var(--card);border:1px solid var(--border);border-radius:8px;padding:.45rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.cell-form{display:inline-block;margin:0 .25rem .25rem 0}.cell-form button{padding:.3rem .7rem;font-size:.85rem}
nav.sections ul{list-style:none;display:flex;gap:1rem;padding:0;margin:0 0 1rem;flex-wrap:wrap}
nav.sections [aria-current]{font-weight:700;color:var(--fg)}
td ul{margin:0;padding-left:1rem}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;background:var(--bg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0 0 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
figure{margin:1rem 0}.chart{min-height:2rem;overflow:hidden}figcaption{font-size:.85rem;color:var(--muted)}
details{margin:.5rem 0}summary{cursor:pointer}
ul.plain{list-style:none;padding:0}ul.plain li{margin:.25rem 0}
button.danger{background:var(--danger);border-color:var(--danger);color:var(--bg)}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}}
`;

export const CONSOLE_JS = `// Feira console: live updates over server-sent events (the pages work without this file).
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
    });
  }
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
export const CHARTS_JS = `import uPlot from './uplot.esm.js';
export function drawCharts(host, labels, x, charts) {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const axis = { stroke: dark ? '#cbd5e1' : '#334155', grid: { stroke: dark ? '#334155' : '#e2e8f0' } };
  const lang = document.documentElement.lang || 'en';
  const short = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' });
  const full = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' });
  const time = { label: labels.time, value: (u, v) => (v == null ? '--' : full.format(new Date(v * 1000))) };
  const timeAxis = { ...axis, values: (u, splits) => splits.map((v) => short.format(new Date(v * 1000))) };
  const width = () => Math.max(280, host.clientWidth);
  const drawn = charts.map((c) => new uPlot({
    width: width(), height: c.height, title: c.title, series: [time, ...c.series],
    axes: [timeAxis, c.unit ? { ...axis, label: c.unit } : axis],
  }, [x, ...c.values], host));
  addEventListener('resize', () => { for (const chart of drawn) chart.setSize({ width: width(), height: chart.height }); });
  return drawn;
}
`;

/** A route handler sending one of the console's static assets (cached 5 minutes, never sniffed). */
export function sendAsset(type: string, body: string) {
  return async (_request: unknown, reply: FastifyReply) =>
    reply
      .header('content-type', `${type}; charset=utf-8`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=300')
      .send(body);
}

export async function consoleAssets(app: FastifyInstance): Promise<void> {
  app.get('/console/assets/console.css', { schema: { hide: true } }, sendAsset('text/css', CONSOLE_CSS));
  app.get('/console/assets/console.js', { schema: { hide: true } }, sendAsset('text/javascript', CONSOLE_JS));
  app.get('/console/assets/charts.js', { schema: { hide: true } }, sendAsset('text/javascript', CHARTS_JS));
}
