// A large freight import must not starve the other tenants (spec-notes Q8):
// a 50 MB spreadsheet goes into one store's table over real HTTP while another
// store's storefront quotes, each a real call to its seller's endpoint, run
// beside it. SQLite only: its one connection and synchronous driver are what
// an import could hold; PostgreSQL imports on a pooled connection of its own.
import { once } from 'node:events';
import { appendFileSync, copyFileSync, createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUOTE_TIMEOUT_MS } from '@feira/contract';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countFreightRows } from '../../src/shipping/freight/freight-table-store.js';
import { type ListeningPlatform, listenPlatform, testDatabaseTargets } from '../../src/testing.js';
import { tableUrl, VTEX_HEADER } from './freight-kit.js';
import { addProducts, admin, answerWith, cart, option, putSettings } from './shipping-kit.js';
import { startTestSeller, type TestSeller } from './test-seller.js';

const SPREADSHEET_BYTES = 50 * 1024 * 1024;

/** Writes a valid VTEX spreadsheet of at least `bytes` bytes (zip ranges of 100 codes, ten weight bands each); its row count. */
async function writeSpreadsheet(file: string, bytes: number): Promise<number> {
  const out = createWriteStream(file);
  let written = 0;
  let rows = 0;
  let chunk = `${VTEX_HEADER}\r\n`;
  for (let range = 0; written < bytes; range++) {
    const start = String(range * 100).padStart(8, '0');
    const end = String(range * 100 + 99).padStart(8, '0');
    for (let band = 0; band < 10; band++, rows++) {
      chunk += `${start};${end};Faixa ${range};${band * 1000};${band * 1000 + 999};${10 + (range % 7)},${band}0;1,5;2;1000000;${1 + (range % 5)}.00:00:00;BRA;5,00\r\n`;
    }
    if (chunk.length > 1 << 16) {
      written += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return rows;
}

const sqlite = testDatabaseTargets().find((target) => target.dialect === 'sqlite');

describe('spec-notes Q8: a 50 MB freight import on SQLite beside another tenant', () => {
  let platform: ListeningPlatform;
  let seller: TestSeller;
  let dir: string;
  let file: string;
  let overlapping: string;
  let lineCount: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-freight-load-'));
    file = join(dir, 'big.csv');
    lineCount = await writeSpreadsheet(file, SPREADSHEET_BYTES);
    overlapping = join(dir, 'overlapping.csv');
    copyFileSync(file, overlapping);
    appendFileSync(overlapping, '00000050;00000060;;500;600;1;0;0;;1;BRA;0\r\n');
    seller = await startTestSeller({ behave: () => ({ status: 200, json: answerWith([option()]) }) });
    platform = await listenPlatform(sqlite);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await seller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Uploads `csv` as the importer's table while the other store quotes back to back; every quote's outcome and time. */
  async function importWhileQuoting(importer: string, other: string, csv: string) {
    let importing = true;
    const upload = request(`${platform.url}${tableUrl(importer, 'big', { name: 'Big' })}`, {
      method: 'PUT',
      headers: { ...admin, 'content-type': 'text/csv' },
      body: createReadStream(csv),
      headersTimeout: 0,
      bodyTimeout: 0,
    })
      .then(async (response) => ({ status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> }))
      .finally(() => {
        importing = false;
      });
    const quotes: { ms: number; available: boolean; reason: string | null }[] = [];
    while (importing) {
      const started = performance.now();
      const response = await request(`${platform.url}/storefront/v1/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: other, zipcode: '01310100', items: cart }),
      });
      const body = (await response.body.json()) as { available: boolean; reason: { code: string } | null };
      quotes.push({ ms: performance.now() - started, available: body.available, reason: body.reason?.code ?? null });
    }
    return { upload: await upload, quotes };
  }

  it('spec-notes Q3, Q8: every quote of another store during the import (refused, then accepted) answers within the quote deadline, not timeout', async () => {
    expect(statSync(file).size).toBeGreaterThanOrEqual(SPREADSHEET_BYTES);
    const importer = (await platform.createSeller()).tenantIds[0] as string;
    const other = (await platform.createSeller()).tenantIds[0] as string;
    await addProducts(platform, other, [
      { sku: 'SKU-A', weight_g: 250 },
      { sku: 'SKU-B', weight_g: 1500 },
    ]);
    const settings = await putSettings(platform, other, {
      method: 'seller_api',
      url: `${seller.url}/quote`,
      distribution_centers: [],
    });
    expect(settings.statusCode).toBe(200);

    // The same rows and one more that overlaps the first: every row is written before the
    // overlap check refuses the sheet, and then all of them are deleted again.
    const refused = await importWhileQuoting(importer, other, overlapping);
    expect(refused.upload.status).toBe(422);
    expect(refused.upload.body.details).toEqual([expect.objectContaining({ field: `lines.${lineCount + 2}.ZipCodeStart` })]);
    expect(await countFreightRows(platform.database)).toBe(0);

    const accepted = await importWhileQuoting(importer, other, file);
    expect(accepted.upload.status).toBe(201);
    expect(accepted.upload.body.row_count).toBe(lineCount);
    expect(await countFreightRows(platform.database)).toBe(lineCount);

    for (const { quotes } of [refused, accepted]) {
      expect(quotes.length).toBeGreaterThan(10);
      // Q3: the seller answers at once, so the only way to miss the 1.0 s deadline is a stalled event loop.
      expect(quotes.filter((q) => !q.available)).toEqual([]);
      expect(quotes.filter((q) => q.ms >= QUOTE_TIMEOUT_MS)).toEqual([]);
    }
  }, 180_000);
});
