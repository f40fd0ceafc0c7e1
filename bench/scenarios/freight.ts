import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { QUOTE_TIMEOUT_MS } from '@feira/contract';
import { request } from 'undici';
import { startLoadGenerator } from '../lib/load.js';
import { benchDatabase, type PlatformHandle, postgresMissing, startPlatform, stopPlatform } from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { difference, round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';
import type { FreightLoadResult, LookupResult } from '../processes/freight-loader.js';

const LOADER = new URL('../processes/freight-loader.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const IMPORT_TARGET = 100_000;
const RATE = 1000;
const SKU = 'SKU-FREIGHT-1';
/** Rows per table: a million (quick mode: 10,000, a CI smoke). */
const ROWS = { full: 1_000_000, quick: 10_000 } as const;
const WEIGHT_BANDS = 10;

/**
 * A VTEX spreadsheet of `rows` rows: zip ranges of 1,000 codes (in steps so the
 * table spans every zipcode), each with WEIGHT_BANDS weight bands of 1 kg,
 * decimal commas, `;`.
 */
async function writeSpreadsheet(file: string, rows: number, firstBand = 0): Promise<void> {
  const out = createWriteStream(file);
  out.write(
    'ZipCodeStart;ZipCodeEnd;PolygonName;WeightStart;WeightEnd;AbsoluteMoneyCost;PricePercent;PriceByExtraWeight;MaxVolume;TimeCost;Country;MinimumValueInsurance\n',
  );
  const ranges = Math.ceil(rows / WEIGHT_BANDS);
  const step = Math.floor(100_000_000 / ranges);
  let written = 0;
  let chunk = '';
  for (let r = 0; r < ranges && written < rows; r++) {
    const start = String(r * step).padStart(8, '0');
    const end = String(r * step + step - 1).padStart(8, '0');
    for (let w = firstBand; w < firstBand + WEIGHT_BANDS && written < rows; w++, written++) {
      chunk += `${start};${end};Faixa ${r};${w * 1000};${w * 1000 + 999};${10 + (r % 7)},${w}0;1,5;2;1000000;${1 + (r % 5)}.00:00:00;BRA;5,00\n`;
    }
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

async function inChild<T>(ctx: ScenarioContext, label: string, options: object, op: string, args: unknown): Promise<T> {
  // A loaded host starts tsx children slowly: a longer wait than the default before giving up.
  const child = await ctx.children.start(label, LOADER, { options, readyTimeoutMs: 120_000 });
  try {
    return await child.call<T>(op, args, 3_600_000);
  } finally {
    ctx.peakRssBytes[label] = child.peakRss();
    await child.stop();
  }
}

const rate = (r: FreightLoadResult) => round(r.rows / (r.elapsedMs / 1000), 0);

async function importFigures(ctx: ScenarioContext, file: string, oneRowFile: string, rows: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  const kinds: Array<'sqlite' | 'postgres'> = ['sqlite'];
  // Quick mode (CI smoke) keeps to SQLite, as the other heavy scenarios do.
  const missing = ctx.mode === 'quick' ? 'not in quick mode' : await postgresMissing(ctx);
  if (missing) ctx.notes.push(`PostgreSQL: ${missing}`);
  else kinds.push('postgres');
  for (const kind of kinds) {
    const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    const imported = await benchDatabase(ctx, kind, 'freight-import');
    const raw = await benchDatabase(ctx, kind, 'freight-raw');
    try {
      const dbOptions = (db: typeof imported) => ({
        databaseUrl: db.url,
        ...(db.searchPath ? { searchPath: db.searchPath } : {}),
      });
      ctx.log(`${label}: importing ${rows.toLocaleString('en-US')} rows`);
      const result = await inChild<FreightLoadResult>(ctx, `import (${label})`, dbOptions(imported), 'import', {
        file,
        tableId: 'bench',
      });
      ctx.log(`${label}: lookups on the imported table and on a 1-row table`);
      const lookups = await inChild<LookupResult>(ctx, `lookup (${label})`, dbOptions(imported), 'lookup', {
        oneRowFile,
        bigTableId: 'bench',
        lookups: ctx.mode === 'quick' ? 1000 : 20_000,
      });
      const ratio = lookups.one.p50Us ? round(lookups.many.p50Us / lookups.one.p50Us, 2) : null;
      figures.push(
        figure(
          `${label}: lookup p50 (freightOptions alone), ${rows.toLocaleString('en-US')}-row table`,
          lookups.many.p50Us,
          'µs',
          {
            baseline: { name: '1-row table p50', value: lookups.one.p50Us, unit: 'µs' },
            target: { text: 'ratio ≤ 1.5×', met: ratio !== null && ratio <= 1.5 },
          },
        ),
        figure(
          `${label}: lookup p99 (freightOptions alone), ${rows.toLocaleString('en-US')}-row table`,
          lookups.many.p99Us,
          'µs',
          {
            baseline: { name: '1-row table p99', value: lookups.one.p99Us, unit: 'µs' },
          },
        ),
      );
      ctx.log(`${label}: raw bulk insert of the same rows`);
      const baseline = await inChild<FreightLoadResult>(ctx, `raw insert (${label})`, dbOptions(raw), 'raw', { file });
      figures.push(
        figure(
          `${label}: import of ${rows.toLocaleString('en-US')} rows (parse, validate, insert, switch)`,
          rate(result),
          'rows/s',
          {
            baseline: { name: 'raw bulk insert of the same rows, already parsed', value: rate(baseline), unit: 'rows/s' },
            target: { text: `≥ ${IMPORT_TARGET.toLocaleString('en-US')} rows/s`, met: rate(result) >= IMPORT_TARGET },
          },
        ),
      );
    } finally {
      await imported.drop();
      await raw.drop();
    }
  }
  return figures;
}

async function admin(
  platform: PlatformHandle,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
  contentType = 'application/json',
) {
  const response = await request(`${platform.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': contentType },
    body: contentType === 'application/json' ? JSON.stringify(body) : (body as Readable),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
}

/** A store quoting from one freight table uploaded from `file`. */
async function storeWithTable(platform: PlatformHandle, file: string): Promise<string> {
  const { tenantId } = await platform.call<{ tenantId: string }>('createSellerAccess', { scopes: ['open:portfolio:read'] });
  await admin(platform, 'POST', `/admin/v1/tenants/${tenantId}/products`, {
    sku: SKU,
    title: 'Caneca Silva',
    price: 49.9,
    stock: 1000,
    dimensions: { depth: 20, height: 10, width: 15, weight: 3500 },
  });
  await admin(platform, 'PUT', `/admin/v1/tenants/${tenantId}/shipping`, { method: 'freight_table', distribution_centers: [] });
  await admin(
    platform,
    'PUT',
    `/admin/v1/tenants/${tenantId}/shipping/freight-tables/normal?name=Normal`,
    createReadStream(file),
    'text/csv',
  );
  return tenantId;
}

async function quoteFigures(ctx: ScenarioContext, bigFile: string, smallFile: string, rows: number): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  const database = await benchDatabase(ctx, 'sqlite', 'freight-quote');
  // One store imports its table again and again, flat out: its upload bucket (docs/security.md, "Tenant
  // isolation") is set past what the loop asks, since the figure is what imports cost the others' quotes.
  const platform = await startPlatform(ctx, database, {
    fixtures: [SELLER_ACCESS],
    uploads: { storeUploadsPerSecond: 1_000, storeUploadBurst: 1_000 },
  });
  ctx.log('uploading the tables');
  const small = await storeWithTable(platform, smallFile);
  const big = await storeWithTable(platform, bigFile);
  // Both tables must price the bench cart: a comparison with an "unavailable" answer would measure no lookup.
  for (const tenantId of [small, big]) {
    const response = await request(`${platform.origin}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: tenantId, zipcode: '50000000', items: [{ sku: SKU, quantity: 1 }] }),
    });
    const answer = (await response.body.json()) as { available?: boolean };
    if (answer.available !== true)
      throw new Error(`the bench cart is not priced by ${tenantId}'s table: ${JSON.stringify(answer)}`);
  }
  const generator = await startLoadGenerator(ctx.children);
  // Zipcodes spread over the whole table, so the probes land all over the index.
  const zipcodes = Array.from({ length: 64 }, (_, i) => String(Math.floor((i + 0.5) * (100_000_000 / 64))).padStart(8, '0'));
  const quotes = (tenantId: string) =>
    zipcodes.map((zipcode) => ({
      method: 'POST' as const,
      path: '/storefront/v1/quotes',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: tenantId, zipcode, items: [{ sku: SKU, quantity: 1 }] }),
    }));
  const run = (name: string, requests: Parameters<typeof generator.run>[0]['requests']) => {
    ctx.log(`${name} at ${RATE}/s`);
    return generator.run({
      origin: platform.origin,
      connections: 64,
      ratePerSecond: RATE,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      requests,
    });
  };
  const health = await run('/health', [{ method: 'GET', path: '/health' }]);
  const one = await run('quotes on a 1-row table', quotes(small));
  const many = await run(`quotes on a ${rows.toLocaleString('en-US')}-row table`, quotes(big));
  // Another store's quotes while one store's table is imported again and again (each replace
  // after the second also deletes the version before last): an import must not starve them.
  const { tenantId: importer } = await platform.call<{ tenantId: string }>('createSellerAccess', {
    scopes: ['open:portfolio:read'],
  });
  let importing = true;
  let imports = 0;
  const importLoop = (async () => {
    while (importing) {
      await admin(
        platform,
        'PUT',
        `/admin/v1/tenants/${importer}/shipping/freight-tables/big?name=Big`,
        createReadStream(bigFile),
        'text/csv',
      );
      imports += 1;
    }
  })();
  const beside = await run(
    `quotes on a 1-row table while another store imports ${rows.toLocaleString('en-US')} rows`,
    quotes(small),
  ).finally(() => {
    importing = false;
  });
  await importLoop;
  ctx.notes.push(`during the import run: ${imports} import(s) of the ${rows.toLocaleString('en-US')}-row table completed`);
  await generator.stop();
  await stopPlatform(ctx, platform, 'platform (SQLite)');
  for (const [name, r] of [
    ['health', health],
    ['1-row', one],
    ['big', many],
    ['1-row beside an import', beside],
  ] as const) {
    if (r.errors) ctx.notes.push(`${name}: ${r.errors} errors (${r.firstError})`);
    if (r.late) ctx.notes.push(`${name}: ${r.late} requests could not be sent on time`);
  }
  const overheadP99 = difference(many.latency.p99Ms, health.latency.p99Ms);
  const ratioP50 = one.latency.p50Ms ? round(many.latency.p50Ms / one.latency.p50Ms, 2) : null;
  return [
    figure(`freight quote p99 at ${RATE}/s, ${rows.toLocaleString('en-US')}-row table`, many.latency.p99Ms, 'ms', {
      baseline: { name: '/health p99 at the same rate', value: health.latency.p99Ms, unit: 'ms' },
    }),
    figure('freight quote overhead p99 (quote p99 − /health p99)', overheadP99, 'ms', {
      target: { text: '< 2 ms', met: overheadP99 !== null && overheadP99 < 2 },
    }),
    figure(`freight quote p50, ${rows.toLocaleString('en-US')}-row table`, many.latency.p50Ms, 'ms', {
      baseline: { name: '1-row table p50', value: one.latency.p50Ms, unit: 'ms' },
      target: { text: 'ratio ≤ 1.5×', met: ratioP50 !== null && ratioP50 <= 1.5 },
    }),
    figure(`freight quote p99, ${rows.toLocaleString('en-US')}-row table`, many.latency.p99Ms, 'ms', {
      baseline: { name: '1-row table p99', value: one.latency.p99Ms, unit: 'ms' },
    }),
    figure(
      `another store's quote p99 at ${RATE}/s while a ${rows.toLocaleString('en-US')}-row table is imported (SQLite)`,
      beside.latency.p99Ms,
      'ms',
      {
        baseline: { name: '1-row table p99 with no import', value: one.latency.p99Ms, unit: 'ms' },
        target: { text: `< ${QUOTE_TIMEOUT_MS} ms (the quote deadline)`, met: beside.latency.p99Ms < QUOTE_TIMEOUT_MS },
      },
    ),
    figure(`another store's quote max while the table is imported`, beside.latency.maxMs, 'ms', {
      target: { text: `< ${QUOTE_TIMEOUT_MS} ms (the quote deadline)`, met: beside.latency.maxMs < QUOTE_TIMEOUT_MS },
    }),
  ];
}

/**
 * BENCHMARKS.md, "Freight": freight-table import rate (SQLite and PostgreSQL) against a raw
 * bulk insert of the same rows in the same run, and storefront quotes priced
 * from a large table against /health and against a 1-row table (the lookup
 * must not grow with the table).
 */
export const freight: Scenario = {
  id: 'freight',
  title: 'Freight tables (import, quote lookup)',
  async unavailable() {
    const platform = (await import('@feira/platform')) as Record<string, unknown>;
    if (typeof platform.importFreightTable !== 'function') return 'freight tables have not landed';
    return null;
  },
  async run(ctx) {
    const rows = ROWS[ctx.mode];
    const bigFile = join(ctx.scratchDir, 'freight-big.csv');
    const smallFile = join(ctx.scratchDir, 'freight-small.csv');
    ctx.log(`writing a ${rows.toLocaleString('en-US')}-row spreadsheet`);
    await writeSpreadsheet(bigFile, rows);
    // The 1-row table's one band (3,000–3,999 g) holds the bench product (3,500 g), so a quote on
    // it probes the index and finds a price, as one on the big table does: the same work, one row.
    await writeSpreadsheet(smallFile, 1, 3);
    if (ctx.mode === 'quick') ctx.notes.push(`quick mode: ${rows.toLocaleString('en-US')} rows instead of 1,000,000`);
    ctx.notes.push(
      `spreadsheet: ${WEIGHT_BANDS} weight bands per zip range, ranges spanning every zipcode; quotes: 64 zipcodes spread over the table, round-robin, open loop at ${RATE}/s, SQLite`,
    );
    return [...(await importFigures(ctx, bigFile, smallFile, rows)), ...(await quoteFigures(ctx, bigFile, smallFile, rows))];
  },
};
